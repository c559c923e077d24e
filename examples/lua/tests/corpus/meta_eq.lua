-- metatables: __eq is consulted only for two distinct tables (or userdata)
local mt = {__eq = function(a, b) return a.v == b.v end}
local a = setmetatable({v = 1}, mt)
local b = setmetatable({v = 1}, mt)
local c = setmetatable({v = 2}, mt)
print(a == b, a == c, a ~= c, a == a)
local plain = {v = 1}
print(a == plain, plain == a)
print(a == 1, a == "x")
local calls = 0
local counted = {__eq = function(x, y) calls = calls + 1 return 1 end}
local x, y = setmetatable({}, counted), setmetatable({}, counted)
print(x == y, x ~= y, calls)
print(x == x, calls)
local t = {[a] = "key a"}
print(t[b])
