-- errors: bitwise operation error messages
local function msg(f) local ok, e = pcall(f) return e end
local t = {}
print(msg(function() return 1.5 & 1 end))
print(msg(function() return t | 1 end))
print(msg(function() return "x" ~ 1 end))
print(msg(function() return ~nil end))
print(msg(function() return 1 << {} end))
print(msg(function() local f = 2.5; return f >> 1 end))
print(msg(function() return math.huge | 0 end))
print(msg(function() return "1.5" & 1 end))
