-- library: math.random sequences after a fixed seed (xoshiro256** in Lua 5.4)
math.randomseed(42)
local t = {}
for i = 1, 10 do t[i] = math.random(1, 100) end
print(table.concat(t, " "))
for i = 1, 10 do t[i] = math.random(6) end
print(table.concat(t, " "))
for i = 1, 5 do io.write(string.format("%.6f ", math.random())) end print()
print(math.random(0), math.random(-10, -5), math.random(math.mininteger, math.maxinteger))
math.randomseed(42)
print(math.random(1, 100))
math.randomseed(7, 11)
print(math.random(1000), math.random(1000))
local ok = true
for i = 1, 1000 do local r = math.random(3, 7) if r < 3 or r > 7 or math.type(r) ~= "integer" then ok = false end end
print(ok)
local f = math.random()
print(f >= 0 and f < 1, math.type(f))
print(pcall(math.random, 0, -1))
print(pcall(math.random, 1, 2, 3))
print(math.random(5, 5))
