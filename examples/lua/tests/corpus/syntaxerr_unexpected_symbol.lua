-- syntax error: unexpected symbol
local x = 1
x = = 2
print(x)
