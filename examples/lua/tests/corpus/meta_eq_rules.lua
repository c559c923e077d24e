-- metatables: __eq of the first operand wins, else the second's
local mt1 = {__eq = function() return true end}
local mt2 = {__eq = function() return false end}
local a, b = setmetatable({}, mt1), setmetatable({}, mt2)
print(a == b, b == a)
local c = {}
print(a == c, c == a, b == c, c == b)
local s = setmetatable({}, {__eq = function(x, y) return "truthy" end})
local s2 = setmetatable({}, getmetatable(s))
print(s == s2, s ~= s2)
