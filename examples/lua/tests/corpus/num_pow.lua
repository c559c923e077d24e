-- numbers: exponentiation always yields a float
print(2 ^ 2, 2 ^ 0.5 == math.sqrt(2), 10 ^ 2, 2 ^ -2, 0 ^ 0)
print(math.type(2 ^ 2), math.type(4 ^ 0.5))
print(2 ^ 63, 2 ^ 64, -2 ^ 63 == math.mininteger)
print((-8) ^ (1 / 3) ~= (-8) ^ (1 / 3), (-2) ^ 3, (-2) ^ 2)
print(0 ^ -1, 1 ^ math.huge, math.huge ^ 0, 2 ^ 1024)
print(10 ^ 15, 10 ^ 16, 10 ^ -3)
print(string.format("%.6f", 3 ^ 0.25), string.format("%.6f", 1.5 ^ 2.5))
