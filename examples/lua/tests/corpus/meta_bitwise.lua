-- metatables: bitwise metamethods
local B = {}
local function b(v) return setmetatable({v = v}, B) end
local function val(o) return type(o) == "table" and o.v or o end
B.__band = function(x, y) return b(val(x) & val(y)) end
B.__bor = function(x, y) return b(val(x) | val(y)) end
B.__bxor = function(x, y) return b(val(x) ~ val(y)) end
B.__shl = function(x, y) return b(val(x) << val(y)) end
B.__shr = function(x, y) return b(val(x) >> val(y)) end
B.__bnot = function(x) return b(~val(x)) end
local x, y = b(12), b(10)
print((x & y).v, (x | y).v, (x ~ y).v, (x << 2).v, (x >> 2).v, (~x).v)
print((1 << x).v, (0xFF & y).v, (3 | x).v)
local onlystr = setmetatable({}, {__band = function(a, c) return "band called" end})
print(onlystr & 1, 1 & onlystr, 1.5 & onlystr)
print(pcall(function() return 1.5 & 1 end))
