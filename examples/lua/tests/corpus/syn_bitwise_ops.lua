-- syntax: bitwise operators including unary ~ and binary ~ (xor)
print(5 & 3, 5 | 3, 5 ~ 3, ~5, 1 << 4, 256 >> 4)
print(~0, -1 >> 63, 1 << 63, 1 << 64, -1 << 1)
print(0xF0 ~ 0xFF, ~0xF & 0xFF)
local x = 0xAB
print((x >> 4) & 0xF, x & 0xF, string.format("%x", x ~ 0xFF))
print(3 ~ ~3)
