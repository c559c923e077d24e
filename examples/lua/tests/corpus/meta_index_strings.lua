-- metatables: indexing a string goes through the string metatable's __index
local s = "abc"
print(s.len == string.len, s.nothing, s.upper(s))
print(("x").rep("y", 3))
print(pcall(function() return s.x.y end))
print(pcall(function() local n = 5; return n.x end))
print(pcall(function() return (true).x end))
