-- tables: # on proper sequences while growing and shrinking
local t = {}
for i = 1, 20 do t[i] = i end
print(#t)
for i = 20, 11, -1 do t[i] = nil end
print(#t)
t[#t] = nil
print(#t)
table.insert(t, "x")
print(#t, t[#t])
local s = {"a", "b", "c", n = 3, extra = true}
print(#s)
local big = {}
for i = 1, 1000 do big[#big + 1] = i end
print(#big)
while #big > 500 do big[#big] = nil end
print(#big)
print(#{n = 1}, #{1, 2, 3, x = 4})
