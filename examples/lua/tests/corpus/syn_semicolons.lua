-- syntax: semicolons as empty statements and separators
;;; local a = 1; local b = 2;
print(a + b);
do ; end
for i = 1, 2 do ; print(i) ; end
local function f() return 5; end
print(f());
local t = {1; 2, 3;}
print(#t, t[1], t[3])
if a then ; elseif b then ; else ; end
print("done");;
