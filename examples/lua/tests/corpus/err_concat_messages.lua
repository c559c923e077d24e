-- errors: concatenation error messages
local function msg(f) local ok, e = pcall(f) return e end
local t = {}
print(msg(function() return "a" .. t end))
print(msg(function() local t = {}; return t .. "a" end))
print(msg(function() return "a" .. nil end))
print(msg(function() return "a" .. undefinedvar end))
print(msg(function() return t.x .. "a" end))
print(msg(function() return true .. "a" end))
print(msg(function() return 1 .. {} end))
print(msg(function() local a, b = "x", nil; return a .. "y" .. b end))
