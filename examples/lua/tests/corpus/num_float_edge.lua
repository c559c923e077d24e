-- numbers: extreme floats
print(1e308 * 10, -1e308 * 10, 2^1023 * 2, 2^-1074, 2^-1075)
print(string.format("%.17g", 0.1), string.format("%.17g", 1/3))
print(0.1 + 0.2 == 0.3, 0.1 + 0.2, string.format("%.17g", 0.1 + 0.2))
print(1e15 + 0.3, 1e16 + 1, 2^53 + 1.0)
print(math.maxinteger + 1.0, math.maxinteger * 1.0 == 2^63)
print(1 - 1e-17 == 1, 100 * 1.1)
print(3.0 == 3, 1e2, 1e-2, 123e-7)
