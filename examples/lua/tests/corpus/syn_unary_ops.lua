-- syntax: unary operators - not # ~ and their stacking
local s = "hello"
print(-5, - -5, -(-5), - - -5)
print(not true, not not true, not nil)
print(#s, -#s, #"" == 0)
print(~1, ~~1, ~-1)
print(-2^2, (-2)^2, -(2^2))
local t = {1, 2, 3}
print(#t * 2, -t[1], not t[4])
