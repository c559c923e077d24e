-- numbers: unary minus on integers, floats and strings
print(-1, -1.0, -0, -0.0, - -0.0)
print(-math.maxinteger, -math.mininteger, -(math.mininteger + 1))
print(-"2", -"2.0", -"0x10", math.type(-"2"), math.type(-"2.0"))
print(pcall(function() return -"abc" end))
print(pcall(function() return -{} end))
local x = 5
print(-x, - -x, -(-x - 1))
