-- metatables: __tostring is used by tostring and print
local P = {}
P.__tostring = function(p) return "P(" .. p.x .. ")" end
local p = setmetatable({x = 1}, P)
print(p, tostring(p), string.format("%s", p))
print(tostring(setmetatable({}, {__tostring = function() return "" end})) == "")
print(pcall(tostring, setmetatable({}, {__tostring = function() return 42 end})))
print(pcall(tostring, setmetatable({}, {__tostring = function() error("boom") end})))
local nested = setmetatable({}, {__tostring = function() return tostring(p) .. "!" end})
print(nested)
