-- library: tostring applied to numbers of every kind
local vals = {0, -0, 0.0, -0.0, 1, -1, 1.5, 1e15, 1e16, -1e16, 2^24, 2^63, -2^63,
  math.maxinteger, math.mininteger, 1/0, -1/0, 123.456, 1e-7, 0.1, 100, 100.0}
local out = {}
for i, v in ipairs(vals) do out[i] = tostring(v) end
print(table.concat(out, " "))
