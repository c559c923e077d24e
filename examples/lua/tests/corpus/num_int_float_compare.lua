-- numbers: integer/float comparisons are exact, not via conversion
local max = math.maxinteger
local f = max + 0.0
print(f, f == max, max < f, max <= f, f > max)
print(math.mininteger + 0.0 == math.mininteger)
local p53 = 2 ^ 53
local i53 = 1 << 53
print(p53 == i53, p53 == i53 + 1, p53 + 1 == p53, p53 + 1 == i53 + 1)
print(i53 + 1 > p53, i53 + 1 < p53 + 2, i53 + 1 == p53 + 2)
print(1 == 1.0, -0.0 == 0, 0.5 < 1, 1 < 1.0000000000000002)
print(max < math.huge, math.mininteger > -math.huge, max == math.huge)
print(max > 2^63, max < 2^63, max + 1.0 == 2^63)
print(9007199254740993 < 9007199254740992.0, 9007199254740993 > 9007199254740992.0)
local nan = 0 / 0
print(1 < nan, 1 > nan, 1 == nan, nan ~= nan, max < nan)
