-- tables: large arrays and sums
local t = {}
for i = 1, 100000 do t[i] = i end
print(#t)
local s = 0
for i = 1, #t do s = s + t[i] end
print(s)
s = 0
for _, v in ipairs(t) do s = s + v end
print(s)
for i = 1, 50000 do t[#t] = nil end
print(#t, t[#t])
local h = {}
for i = 1, 20000 do h["key" .. i] = i end
local hs = 0
for k, v in pairs(h) do hs = hs + v end
print(hs)
