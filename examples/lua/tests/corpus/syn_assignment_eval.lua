-- syntax: in multiple assignment all expressions are evaluated before assigning
local a, b, c = 1, 2, 3
a, b, c = c, a, b
print(a, b, c)
local t = {1, 2}
t[1], t[2] = t[2], t[1]
print(t[1], t[2])
local i = 1
local arr = {}
i, arr[1] = 2, i
print(i, arr[1])
local function two() return "x", "y" end
local p, q, r = two()
print(p, q, r)
local s1, s2 = two(), two()
print(s1, s2)
