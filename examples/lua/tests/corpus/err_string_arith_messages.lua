-- errors: arithmetic on non-numeric strings goes through the string metamethods
local function msg(f) local ok, e = pcall(f) return e end
print(msg(function() return "abc" + 1 end))
print(msg(function() return 1 - "x" end))
print(msg(function() return "a" * "b" end))
print(msg(function() local s = "q"; return s / 2 end))
print(msg(function() return "10" + {} end))
print(msg(function() return -"z" end))
print(msg(function() return "5" // "0" end))
print(msg(function() return "5" % "0" end))
print("5" // "0.0", "5" % "2")
