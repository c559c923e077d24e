-- syntax: do blocks, scoping and shadowing
local x = 1
do
  local x = 2
  print("inner", x)
  do
    local x = x + 1
    print("inner2", x)
  end
  print("inner again", x)
end
print("outer", x)
do local y = 5 end
print(y)
local z = 1
do z = 2 end
print(z)
local a = 1
local function get() return a end
do local a = 100; print(get()) end
