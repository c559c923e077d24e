-- errors: indexing error messages name the offending variable
local function msg(f) local ok, e = pcall(f) return e end
local t = {a = {}}
local up = nil
print(msg(function() return t.y.z end))
print(msg(function() return undefinedglobal.x end))
print(msg(function() local l; return l.x end))
print(msg(function() return up[1] end))
print(msg(function() return t.a.b.c end))
print(msg(function() t.missing.x = 1 end))
print(msg(function() local s = 5; return s.x end))
print(msg(function() return (nil).x end))
print(msg(function() return t[1][2] end))
print(msg(function() local b = true; b.x = 1 end))
print(msg(function() return ("x")[1][2] end))
