-- library: a typical stdin-processing script: sum columns of numbers
local sums, rows = {}, 0
for line in io.lines() do
  rows = rows + 1
  local col = 0
  for field in line:gmatch("%S+") do
    col = col + 1
    sums[col] = (sums[col] or 0) + tonumber(field)
  end
end
print("rows", rows)
for i, s in ipairs(sums) do print("col" .. i, s) end
