-- tables: next traverses all keys; order is not specified, so we only sum
print(next({}))
local t = {10, 20, 30, a = 1, b = 2}
local k, v = next(t)
print(k ~= nil, v ~= nil)
local sum, count = 0, 0
local key = nil
repeat
  key, v = next(t, key)
  if key ~= nil then sum = sum + v; count = count + 1 end
until key == nil
print(sum, count)
print(next({}, nil), next({5}))
print(pcall(next, {}, "nokey"))
print(pcall(next))
local single = {only = "value"}
print(next(single))
print(next(single, "only"))
