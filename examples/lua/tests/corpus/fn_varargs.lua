-- functions: varargs counting, forwarding and packing
local function count(...) return select("#", ...) end
print(count(), count(nil), count(1, 2, 3), count(nil, nil, nil))
local function forward(...) return count(...) end
print(forward(1, nil, nil))
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...) or 0) end
  return s
end
print(sum(1, 2, 3, nil, 5))
local function first_and_rest(first, ...) return first, select("#", ...) end
print(first_and_rest("a", "b", "c"))
local function append(x, ...) local t = table.pack(...) t[t.n + 1] = x return table.unpack(t, 1, t.n + 1) end
print(append("end", 1, 2))
local function pass(...) local a, b, c = ... return c, b, a end
print(pass(1, 2, 3, 4))
print((function(...) return ... end)())
