-- metatables: __index chains through several tables
local A = {a = "from A"}
local B = setmetatable({b = "from B"}, {__index = A})
local C = setmetatable({c = "from C"}, {__index = B})
local obj = setmetatable({}, {__index = C})
print(obj.a, obj.b, obj.c, obj.d)
A.d = "late A"
print(obj.d)
local depth = {}
local cur = {leaf = "bottom"}
for i = 1, 50 do cur = setmetatable({}, {__index = cur}) end
print(cur.leaf)
local fnchain = setmetatable({}, {__index = setmetatable({}, {__index = function(_, k) return "fn:" .. k end})})
print(fnchain.x)
