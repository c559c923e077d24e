-- syntax: vararg expressions in different positions
local function f(...)
  local a, b = ...
  local t = {...}
  local n = select("#", ...)
  return a, b, #t, n
end
print(f())
print(f(1))
print(f(1, 2, 3))
local function g(first, ...) return first, (...) end
print(g(1, 2, 3))
local function h(...) return ... end
print(h(1, nil, 3))
print((h(1, 2, 3)))
local function i(...) return {n = select("#", ...), ...} end
local r = i(nil, nil)
print(r.n, r[1], r[2])
local function j(...) local x, y, z = ..., "last" return x, y, z end
print(j(1, 2, 3))
