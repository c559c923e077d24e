-- metatables: default values via a shared metatable
local defaults_mt = {__index = function(t, k) return 0 end}
local counts = setmetatable({}, defaults_mt)
for w in ("a b a c a b"):gmatch("%a") do counts[w] = counts[w] + 1 end
print(counts.a, counts.b, counts.c, counts.z)
local function with_default(d) return setmetatable({}, {__index = function() return d end}) end
local t = with_default("none")
t.x = "set"
print(t.x, t.y)
local matrix = setmetatable({}, {__index = function(m, i)
  local row = setmetatable({}, {__index = function() return 0 end})
  rawset(m, i, row)
  return row
end})
matrix[2][3] = 5
print(matrix[2][3], matrix[1][1], matrix[2][1])
