-- metatables: __index pointing to itself (class pattern); a self-loop is detected
local C = {}
C.__index = C
C.value = "class value"
local o = setmetatable({}, C)
print(o.value, o.nothing)
local loop = {}
loop.__index = loop
setmetatable(loop, loop)
print(pcall(function() return loop.missing end))
local w = {}
w.__newindex = w
setmetatable(w, w)
print(pcall(function() w.x = 1 end))
