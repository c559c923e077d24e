-- tables: rawlen ignores __len; # uses it
local t = setmetatable({1, 2, 3}, {__len = function() return 42 end})
print(#t, rawlen(t), rawlen("abcd"))
print(pcall(rawlen, 5))
local s = setmetatable({}, {__len = function(self) return "not a number" end})
print(#s)
