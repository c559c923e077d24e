-- library: math.tointeger and math.type on various inputs
local inputs = {1, 1.0, -1.5, 2^53, 2^63, -2^63, 1/0, "7", "7.0", "x", true}
for _, v in ipairs(inputs) do
  print(tostring(v), math.type(v), math.tointeger(v))
end
