-- tables: tables, functions and booleans as keys (identity based)
local k1, k2 = {}, {}
local f = function() end
local t = {[k1] = "first", [k2] = "second", [f] = "func", [true] = "T", [false] = "F"}
print(t[k1], t[k2], t[f], t[true], t[false], t[{}])
local set = {}
local objs = {}
for i = 1, 5 do objs[i] = {id = i}; set[objs[i]] = i * i end
local s = 0
for k, v in pairs(set) do s = s + v + k.id end
print(s)
t[k1] = nil
print(t[k1])
print(t["true"], t[1])
