-- numbers: floor division rounds toward minus infinity
print(7 // 2, -7 // 2, 7 // -2, -7 // -2)
print(7.0 // 2, -7.0 // 2, 7 // -2.0, -7.5 // -2)
print(6 // 3, -6 // 3, 0 // 5, 0 // -5)
print(7.5 // 2, -7.5 // 2, 1 // 0.0, -1 // 0.0, 0.0 // 0.0)
print(math.type(7 // 2), math.type(7.0 // 2))
print(math.mininteger // -1, math.mininteger // 1, math.maxinteger // -1)
print(3 // 1e300, -3 // 1e300, 1e300 // 3 > 0)
for a = -3, 3 do
  local row = {}
  for _, b in ipairs({-2, -1, 1, 2}) do row[#row + 1] = a // b end
  print(a, table.concat(row, " "))
end
