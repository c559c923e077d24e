-- numbers: float accumulation is deterministic IEEE double arithmetic
local s = 0.0
for i = 1, 1000 do s = s + 1 / i end
print(string.format("%.12f", s))
local p = 1.0
for i = 1, 20 do p = p * 1.5 end
print(p)
local x = 1.0
for i = 1, 60 do x = x / 2 end
print(x, x * 2^60)
local sq = 2.0
for i = 1, 5 do sq = (sq + 2 / sq) / 2 end
print(string.format("%.15f", sq))
print(7 / 3 * 3 == 7, 0.5 + 0.25 == 0.75)
