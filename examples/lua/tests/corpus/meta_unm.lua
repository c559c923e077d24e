-- metatables: __unm and __bnot (unary)
local V = {}
V.__unm = function(a) return setmetatable({x = -a.x}, V) end
V.__bnot = function(a) return "bnot:" .. a.x end
local v = setmetatable({x = 5}, V)
print((-v).x, (- -v).x, ~v)
print(pcall(function() return -{} end))
print(pcall(function() return ~{} end))
