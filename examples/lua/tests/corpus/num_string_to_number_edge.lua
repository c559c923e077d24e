-- numbers: conversions between strings and numbers at the edges
print(tostring(1e15), tostring(1e16), tostring(-1e15))
print(tostring(123456789012345678), tostring(0.1 + 0.7))
print(tonumber(tostring(1/3)) == 1/3, string.format("%.17g", 1/3) + 0 == 1/3)
print(tonumber("0x7FFFFFFFFFFFFFFF") == math.maxinteger)
print(tonumber("9223372036854775808"), math.type(tonumber("9223372036854775807")))
print(tonumber("1e1"), tonumber("0x1e1"), tonumber("1E1"))
print(tonumber("0b101"), tonumber("1_000"), tonumber("1,5"))
