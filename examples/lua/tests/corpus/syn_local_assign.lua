-- syntax: local declarations and multiple assignment adjustment
local a, b, c = 1, 2
print(a, b, c)
local d, e = 1, 2, 3
print(d, e)
local f
print(f)
local g, h = (function() return 10, 20, 30 end)()
print(g, h)
local i, j, k = (function() return 10, 20 end)(), 5
print(i, j, k)
x, y = 7, 8
print(x, y)
x, y = y, x
print(x, y)
local t = {}
t.a, t.b, t[1] = "A", "B", "one"
print(t.a, t.b, t[1])
local m = 1
local m = m + 1
print(m)
local n <const> = 42
print(n * 2)
