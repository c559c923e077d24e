-- errors: comparison error messages
local function msg(f) local ok, e = pcall(f) return e end
print(msg(function() return 1 < nil end))
print(msg(function() return nil < 1 end))
print(msg(function() return {} < {} end))
print(msg(function() return "a" < 1 end))
print(msg(function() return 1 <= "a" end))
print(msg(function() return {} > 1 end))
print(msg(function() return true >= false end))
print(msg(function() return print < print end))
