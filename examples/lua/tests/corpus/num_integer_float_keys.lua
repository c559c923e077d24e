-- numbers: numbers are normalized when used as keys
local t = {}
t[1] = "int"
t[1.0] = "float overwrites"
t[2^53] = "big"
print(t[1], t[2^53 | 0], t[1 << 53])
t[1.5] = "frac"
print(t[1.5], t[3 / 2])
local count = 0
for k, v in pairs(t) do count = count + 1 end
print(count)
for k in pairs({[3.0] = true}) do print(k, math.type(k)) end
t[-0.0] = "zero"
print(t[0], t[0.0])
