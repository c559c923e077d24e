-- numbers: integer arithmetic wraps around (two's complement)
local max, min = math.maxinteger, math.mininteger
print(max, min)
print(max + 1 == min, min - 1 == max)
print(max + 1, min - 1)
print(max * 2, min * 2, max * max)
print(-min, -min == min, min // 1)
print(math.abs(min), math.abs(min + 1))
print(max + max, max - min, min + min)
local h = 0
for i = 1, 50 do h = h * 31 + i end
print(h)
print(0x7fffffffffffffff + 1, 0xffffffffffffffff * 2)
