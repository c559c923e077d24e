-- metatables: arithmetic metamethods with the table on either side
local Vec = {}
Vec.__index = Vec
local function vec(x, y) return setmetatable({x = x, y = y}, Vec) end
local function unpackv(o) if type(o) == "number" then return o, o end return o.x, o.y end
Vec.__add = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax + bx, ay + by) end
Vec.__sub = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax - bx, ay - by) end
Vec.__mul = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax * bx, ay * by) end
Vec.__div = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax / bx, ay / by) end
Vec.__mod = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax % bx, ay % by) end
Vec.__pow = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax ^ bx, ay ^ by) end
Vec.__idiv = function(a, b) local ax, ay = unpackv(a) local bx, by = unpackv(b) return vec(ax // bx, ay // by) end
Vec.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
local a, b = vec(7, 9), vec(2, 4)
print(tostring(a + b), tostring(a - b), tostring(a * b), tostring(a / b))
print(tostring(a % b), tostring(a ^ b), tostring(a // b))
print(tostring(a + 1), tostring(10 - a), tostring(2 * b), tostring(1 / b))
print(tostring((a + b) * 2 - 1))
print(tostring(a + 0.5), tostring(-1 // b))
