-- library: pairs returns next; iteration with explicit next
local t = {a = 1, b = 2, c = 3}
local f, s, c = pairs(t)
print(f == next, s == t, c)
local total = 0
for k, v in next, t do total = total + v end
print(total)
print(pcall(pairs))
print(select("#", pairs(nil)), pcall(function() for k in pairs(nil) do end end))
local tm = setmetatable({}, {__pairs = function(self) return function(_, k) if not k then return 1, "one" end end, self, nil end})
for k, v in pairs(tm) do print(k, v) end
