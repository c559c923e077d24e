-- tables: float keys with integer values are normalized to integers
local t = {}
t[1.0] = "one"
t[2] = "two"
print(t[1], t[2.0], #t)
t[2^53] = "big"
print(t[math.tointeger(2^53)])
t[0.5] = "half"
print(t[0.5], t[1/2])
local seen = {}
for k, v in pairs({[1.0] = "a", [2.5] = "b"}) do seen[v] = tostring(k) .. " " .. math.type(k) end
print(seen.a, seen.b)
local u = {}
u[-0.0] = "neg zero"
print(u[0], math.type(next(u)))
local v = {[3] = 1}
v[3.0] = v[3.0] + 1
print(v[3])
