-- metatables: __index as a table supplies defaults
local defaults = {color = "red", size = 10}
local obj = setmetatable({size = 20}, {__index = defaults})
print(obj.color, obj.size, obj.missing, rawget(obj, "color"))
defaults.color = "blue"
print(obj.color)
obj.color = "green"
print(obj.color, defaults.color)
obj.color = nil
print(obj.color)
local arr = setmetatable({}, {__index = {10, 20, 30}})
print(arr[2], #arr)
