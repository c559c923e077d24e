-- tables: nested tables and a 2-D grid
local grid = {}
for r = 1, 4 do
  grid[r] = {}
  for c = 1, 5 do grid[r][c] = r * 10 + c end
end
for r = 1, 4 do print(table.concat(grid[r], " ")) end
local transposed = {}
for c = 1, 5 do
  transposed[c] = {}
  for r = 1, 4 do transposed[c][r] = grid[r][c] end
end
print(#transposed, #transposed[1], transposed[5][4])
local tree = {value = 1, children = {{value = 2, children = {}}, {value = 3, children = {{value = 4, children = {}}}}}}
local function total(node)
  local s = node.value
  for _, ch in ipairs(node.children) do s = s + total(ch) end
  return s
end
print(total(tree))
local shared = {}
local a, b = {ref = shared}, {ref = shared}
a.ref.x = 5
print(b.ref.x, a.ref == b.ref)
