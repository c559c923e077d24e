-- metatables: print calls __tostring on every argument; __name appears when no __tostring
local T = setmetatable({}, {__tostring = function() return "T!" end})
print(T, T, 1, T)
io.write(tostring(T), "\n")
print(tostring(setmetatable({}, {__tostring = function(s) return "self:" .. type(s) end})))
print(pcall(print, setmetatable({}, {__tostring = function() return {} end})))
