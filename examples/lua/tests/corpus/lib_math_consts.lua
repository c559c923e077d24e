-- library: math constants and math.ult
print(math.pi, math.huge, -math.huge)
print(math.maxinteger, math.mininteger, math.maxinteger + 1 == math.mininteger)
print(string.format("%.15f", math.pi))
print(math.ult(1, 2), math.ult(-1, 2), math.ult(2, -1), math.ult(math.maxinteger, math.mininteger))
print(math.ult(0, 0), math.ult(-2, -1))
print(pcall(math.ult, 1.5, 2))
print(math.ult(1.0, 2))
