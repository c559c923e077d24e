-- functions: many return values and arguments
local function range(n) local t = {} for i = 1, n do t[i] = i end return table.unpack(t) end
print(select("#", range(200)))
local function sum(...) local s = 0 for i = 1, select("#", ...) do s = s + select(i, ...) end return s end
print(sum(range(200)))
local t = {range(250)}
print(#t, t[250])
print(math.max(range(100)), math.min(range(100)))
print(string.char(range(10)):byte(-1))
