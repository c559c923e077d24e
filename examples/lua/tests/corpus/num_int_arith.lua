-- numbers: integer arithmetic stays integer; / and ^ always give floats
print(7 + 3, 7 - 3, 7 * 3, 7 / 2, 6 / 2, 2 ^ 10)
print(math.type(7 + 3), math.type(6 / 2), math.type(2 ^ 2))
print(1 + 2.0, math.type(1 + 2.0), 3 * 1.0, 10 - 0.5)
print(-7 + 0, 0 * -1, math.type(0 * -1))
print(100000 * 100000, 123456789 * 987654321)
print(1e2 + 1, 2^53 + 1)
local acc = 0
for i = 1, 100 do acc = acc + i * i end
print(acc, math.type(acc))
