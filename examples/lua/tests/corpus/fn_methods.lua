-- functions: methods defined with ':' receive self
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:len2() return self.x * self.x + self.y * self.y end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point.scale(p, k) return Point.new(p.x * k, p.y * k) end
local p = Point.new(3, 4)
print(p:len2(), Point.len2(p), p.len2(p))
local q = p:add(Point.new(1, 1)):scale(2)
print(q.x, q.y)
local m = p.len2
print(m(p))
local counter = {n = 0}
function counter.inc(self, k) self.n = self.n + (k or 1) return self end
counter:inc():inc(3)
print(counter.n)
print(pcall(function() return Point.len2() end))
