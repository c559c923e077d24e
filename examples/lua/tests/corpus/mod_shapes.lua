-- helper module (not a program): classes exported by a module
local shapes = {}
local Rect = {}
Rect.__index = Rect
function Rect.new(w, h) return setmetatable({w = w, h = h}, Rect) end
function Rect:area() return self.w * self.h end
shapes.Rect = Rect
shapes.uses_helper = require("mod_util").double(21)
return shapes
