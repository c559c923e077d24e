-- numbers: ordering comparisons mixing integers and floats
local vals = {3, 2.5, -1, 0.0, -0.5, 10, 2, 1e3, -1e3}
table.sort(vals)
for _, v in ipairs(vals) do io.write(tostring(v), " ") end print()
print(1 < 2.0, 2.0 < 1, 2 <= 2.0, 2.0 >= 2, 3 > 2.999999)
print(math.maxinteger < 9223372036854775808.0, math.maxinteger >= 9223372036854775807.0)
print(math.mininteger <= -9223372036854775808.0, math.mininteger < -9223372036854775808.0)
print(2^53 + 1 < (1 << 53) + 1, (1 << 53) + 1 <= 2^53 + 2)
print(-0.0 < 0.0, -0.0 <= 0, 0 <= -0.0)
print(pcall(function() return 1 < "2" end))
print(pcall(function() return "1" < 2 end))
