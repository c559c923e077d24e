-- tables: hash part: string keys, update, delete, mixed keys
local t = {}
t.name = "lua"
t["version"] = 5.4
t[true] = "yes"
t[3.5] = "float key"
print(t.name, t.version, t[true], t[3.5], t.missing)
t.name = "LUA"
print(t.name)
t.name = nil
print(t.name)
local n = 0
for k, v in pairs(t) do n = n + 1 end
print(n)
local keys = {}
local big = {}
for i = 1, 100 do big["k" .. i] = i end
local sum = 0
for k, v in pairs(big) do sum = sum + v end
print(sum)
for i = 1, 100, 2 do big["k" .. i] = nil end
sum = 0
for k, v in pairs(big) do sum = sum + v end
print(sum)
