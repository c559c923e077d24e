-- metatables: setmetatable returns its argument; metatables are shared objects
local mt = {}
local a = setmetatable({}, mt)
local b = setmetatable({}, mt)
print(getmetatable(a) == getmetatable(b))
mt.__index = {shared = "yes"}
print(a.shared, b.shared)
local r = setmetatable({}, nil)
print(getmetatable(r))
print(pcall(setmetatable, {}))
mt.__index = nil
print(a.shared)
