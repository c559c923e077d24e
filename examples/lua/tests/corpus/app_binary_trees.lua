-- app: the binary-trees allocation benchmark at a small depth, plus tree utilities

local function bottom_up(depth)
  if depth == 0 then return {} end
  depth = depth - 1
  return {bottom_up(depth), bottom_up(depth)}
end

local function item_check(tree)
  if tree[1] then return 1 + item_check(tree[1]) + item_check(tree[2]) end
  return 1
end

local N = 10
local mindepth = 4
local maxdepth = math.max(mindepth + 2, N)

do
  local stretch = maxdepth + 1
  print(string.format("stretch tree of depth %d\t check: %d", stretch, item_check(bottom_up(stretch))))
end

local long_lived = bottom_up(maxdepth)

for depth = mindepth, maxdepth, 2 do
  local iters = 2 ^ (maxdepth - depth + mindepth)
  local check = 0
  for _ = 1, iters do check = check + item_check(bottom_up(depth)) end
  print(string.format("%d\t trees of depth %d\t check: %d", math.tointeger(iters), depth, check))
end

print(string.format("long lived tree of depth %d\t check: %d", maxdepth, item_check(long_lived)))

-- a binary search tree with insert / lookup / delete / traversal
local BST = {}
BST.__index = BST
function BST.new() return setmetatable({root = nil, count = 0}, BST) end

local function insert(node, k, v)
  if not node then return {key = k, val = v}, true end
  local added
  if k < node.key then node.left, added = insert(node.left, k, v)
  elseif k > node.key then node.right, added = insert(node.right, k, v)
  else node.val = v; added = false end
  return node, added
end
function BST:put(k, v)
  local added
  self.root, added = insert(self.root, k, v)
  if added then self.count = self.count + 1 end
end
function BST:get(k)
  local n = self.root
  while n do
    if k < n.key then n = n.left elseif k > n.key then n = n.right else return n.val end
  end
end
local function min_node(n) while n.left do n = n.left end return n end
local function delete(node, k)
  if not node then return nil, false end
  local removed
  if k < node.key then node.left, removed = delete(node.left, k)
  elseif k > node.key then node.right, removed = delete(node.right, k)
  else
    if not node.left then return node.right, true end
    if not node.right then return node.left, true end
    local m = min_node(node.right)
    node.key, node.val = m.key, m.val
    node.right = delete(node.right, m.key)
    removed = true
  end
  return node, removed
end
function BST:remove(k)
  local removed
  self.root, removed = delete(self.root, k)
  if removed then self.count = self.count - 1 end
  return removed
end
function BST:inorder()
  local out = {}
  local function walk(n) if n then walk(n.left); out[#out + 1] = n.key; walk(n.right) end end
  walk(self.root)
  return out
end
local function height(n) if not n then return 0 end return 1 + math.max(height(n.left), height(n.right)) end

local t = BST.new()
local x = 17
for i = 1, 200 do
  x = (x * 1103515245 + 12345) % 2147483648
  t:put(x % 500, i)
end
print("bst size", t.count, "height", height(t.root))
local keys = t:inorder()
print("first keys", table.concat(keys, " ", 1, 8))
local removed = 0
for k = 0, 499, 3 do if t:remove(k) then removed = removed + 1 end end
print("removed", removed, "size", t.count, #t:inorder())
print("lookup", t:get(keys[#keys]), t:get(-1))
local sorted_ok = true
local inorder = t:inorder()
for i = 2, #inorder do if inorder[i - 1] >= inorder[i] then sorted_ok = false end end
print("still sorted", sorted_ok)
collectgarbage()
print("done")
