-- strings: the string metatable makes string functions available as methods
local mt = getmetatable("")
print(type(mt), mt.__index == string, getmetatable("abc") == mt)
local s = "hello"
print(s:upper(), s:len(), ("x"):rep(3), s:sub(2, 3), s:byte(1))
print(("%d items"):format(3), ("a,b"):find(","), ("abc"):reverse())
print(#s, s.len == string.len)
string.shout = function(str) return str:upper() .. "!" end
print(("hey"):shout())
string.shout = nil
print(pcall(function() return ("hey"):shout() end))
local n = 42
print(pcall(function() return n:rep(2) end))
