-- tables: pairs visits every key once; sort keys for a stable output
local t = {banana = 3, apple = 1, cherry = 2, [1] = "x", [2] = "y"}
local skeys, nkeys = {}, {}
for k, v in pairs(t) do
  if type(k) == "string" then skeys[#skeys + 1] = k else nkeys[#nkeys + 1] = k end
end
table.sort(skeys)
table.sort(nkeys)
for _, k in ipairs(skeys) do print(k, t[k]) end
for _, k in ipairs(nkeys) do print(k, t[k]) end
local count = 0
for k in pairs(t) do t[k] = nil; count = count + 1 end
print(count, next(t))
local mt = setmetatable({}, {__pairs = function(self)
  local i = 0
  return function() i = i + 1; if i <= 3 then return i, i * 10 end end, self, nil
end})
for k, v in pairs(mt) do io.write(k, "=", v, " ") end print()
