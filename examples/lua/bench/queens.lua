-- queens: count all N-queens solutions by backtracking (recursion, boolean arrays)
local n = tonumber(arg and arg[1]) or 13

local cols, diag1, diag2 = {}, {}, {}
local solutions, placed = 0, 0

local function place(row, size)
  if row > size then
    solutions = solutions + 1
    return
  end
  for c = 1, size do
    local d1, d2 = row + c, row - c + size
    if not cols[c] and not diag1[d1] and not diag2[d2] then
      cols[c], diag1[d1], diag2[d2] = true, true, true
      placed = placed + 1
      place(row + 1, size)
      cols[c], diag1[d1], diag2[d2] = false, false, false
    end
  end
end

local function solve(size)
  for i = 1, 2 * size + 1 do cols[i] = false; diag1[i] = false; diag2[i] = false end
  solutions, placed = 0, 0
  place(1, size)
  return solutions, placed
end

for size = 4, n do
  local s, p = solve(size)
  print(string.format("queens(%d): %d solutions, %d placements", size, s, p))
end
