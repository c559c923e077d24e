-- metatables: __len
local t = setmetatable({1, 2, 3}, {__len = function(self) return 99 end})
print(#t, rawlen(t))
local sized = setmetatable({}, {__len = function(self) return self.count or 0 end})
print(#sized)
sized.count = 7
print(#sized)
local multi = setmetatable({}, {__len = function() return 1, 2 end})
print(#multi)
print(pcall(function() return #5 end))
print(pcall(function() local x = nil; return #x end))
