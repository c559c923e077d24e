-- metatables: __lt and __le, including swapped > and >=
local V = {}
V.__index = V
V.__lt = function(a, b) return a.v < b.v end
V.__le = function(a, b) return a.v <= b.v end
local function new(v) return setmetatable({v = v}, V) end
local one, two = new(1), new(2)
print(one < two, one > two, one <= two, one >= two, two >= two)
local list = {new(5), new(3), new(9), new(1)}
table.sort(list)
for _, e in ipairs(list) do io.write(e.v, " ") end print()
local only_lt = setmetatable({}, {__lt = function() return true end})
print(pcall(function() return only_lt <= only_lt end))
print(pcall(function() return only_lt < only_lt end))
local mix = setmetatable({}, {__lt = function(a, b) return type(a) == "number" end})
print(pcall(function() return 1 < mix end))
print(pcall(function() return mix < 1 end))
local truthy = setmetatable({}, {__lt = function() return "yes" end})
print(truthy < truthy)
