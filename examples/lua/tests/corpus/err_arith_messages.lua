-- errors: arithmetic error messages name the offending variable
local function msg(f) local ok, e = pcall(f) return e end
local t = {}
local up = nil
print(msg(function() return x + 1 end))
print(msg(function() local l; return l * 2 end))
print(msg(function() return t.field - 1 end))
print(msg(function() return up / 2 end))
print(msg(function() return 1 + {} end))
print(msg(function() return t + t end))
print(msg(function() return -t end))
print(msg(function() return "a" + 1 end))
print(msg(function() return 2 ^ true end))
print(msg(function() return t[1] % 2 end))
print(msg(function() return 1 // nil end))
print(msg(function() return t.a.b end))
