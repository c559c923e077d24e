-- errors: messages name upvalues, methods, fields and constants
local function msg(f) local ok, e = pcall(f) return e end
local cfg = nil
local obj = {}
print(msg(function() return cfg.x end))
print(msg(function() return obj:nomethod() end))
print(msg(function() return obj.field.sub end))
print(msg(function() return #cfg end))
print(msg(function() return -cfg end))
print(msg(function() return cfg .. "" end))
print(msg(function() return math.nofunc() end))
print(msg(function() return obj[1].x end))
print(msg(function() local a = {}; return a.b.c.d end))
