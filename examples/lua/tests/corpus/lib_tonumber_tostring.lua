-- library: tonumber/tostring round trips
for _, v in ipairs({0, 1, -1, 42, 3.5, -0.25, 1e10, 1e20, 2^53, math.maxinteger, math.mininteger}) do
  local s = tostring(v)
  local back = tonumber(s)
  print(s, back == v, math.type(back))
end
print(tonumber("  42  "), tonumber("42abc"), tonumber("4 2"), tonumber("0X1A"))
print(tonumber(""), tonumber("-"), tonumber("."), tonumber("e1"))
