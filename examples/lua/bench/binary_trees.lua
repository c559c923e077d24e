-- binary_trees: allocate and walk many short-lived binary trees (GC and table allocation)
local n = tonumber(arg and arg[1]) or 15

local function make(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return { make(depth), make(depth) }
end

local function check(tree)
  local left = tree[1]
  if left then
    return 1 + check(left) + check(tree[2])
  end
  return 1
end

local mindepth = 4
local maxdepth = mindepth + 2
if n > maxdepth then maxdepth = n end

local stretch = maxdepth + 1
print(string.format("stretch tree of depth %d\t check: %d", stretch, check(make(stretch))))

local longlived = make(maxdepth)

for depth = mindepth, maxdepth, 2 do
  local iters = 1
  for _ = 1, maxdepth - depth + mindepth do iters = iters * 2 end
  local c = 0
  for _ = 1, iters do
    c = c + check(make(depth))
  end
  print(string.format("%d\t trees of depth %d\t check: %d", iters, depth, c))
end

print(string.format("long lived tree of depth %d\t check: %d", maxdepth, check(longlived)))
