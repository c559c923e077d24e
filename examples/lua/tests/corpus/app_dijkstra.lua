-- app: a binary-heap priority queue and Dijkstra / Prim on small graphs

local Heap = {}
Heap.__index = Heap

function Heap.new(less) return setmetatable({items = {}, size = 0, less = less or function(a, b) return a < b end}, Heap) end

function Heap:push(v)
  self.size = self.size + 1
  local items, i = self.items, self.size
  items[i] = v
  while i > 1 do
    local parent = i // 2
    if self.less(items[i], items[parent]) then
      items[i], items[parent] = items[parent], items[i]
      i = parent
    else break end
  end
end

function Heap:pop()
  if self.size == 0 then return nil end
  local items = self.items
  local top = items[1]
  items[1] = items[self.size]
  items[self.size] = nil
  self.size = self.size - 1
  local i = 1
  while true do
    local l, r, smallest = 2 * i, 2 * i + 1, i
    if l <= self.size and self.less(items[l], items[smallest]) then smallest = l end
    if r <= self.size and self.less(items[r], items[smallest]) then smallest = r end
    if smallest == i then break end
    items[i], items[smallest] = items[smallest], items[i]
    i = smallest
  end
  return top
end

function Heap:empty() return self.size == 0 end

-- heap sort check
local h = Heap.new()
local seed = 7
for i = 1, 50 do seed = (seed * 75 + 74) % 65537; h:push(seed % 1000) end
local sorted, prev, ok = {}, -1, true
while not h:empty() do
  local v = h:pop()
  if v < prev then ok = false end
  prev = v
  sorted[#sorted + 1] = v
end
print("heap sorted:", ok, #sorted, sorted[1], sorted[25], sorted[50])

-- graph
local edges = {
  {"A", "B", 7}, {"A", "C", 9}, {"A", "F", 14}, {"B", "C", 10}, {"B", "D", 15},
  {"C", "D", 11}, {"C", "F", 2}, {"D", "E", 6}, {"E", "F", 9}, {"G", "H", 1},
}
local graph = {}
local function add(a, b, w)
  graph[a] = graph[a] or {}
  graph[a][#graph[a] + 1] = {to = b, w = w}
end
for _, e in ipairs(edges) do add(e[1], e[2], e[3]); add(e[2], e[1], e[3]) end

local function dijkstra(src)
  local dist, prevn = {[src] = 0}, {}
  local pq = Heap.new(function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
  pq:push({0, src})
  local visited = {}
  while not pq:empty() do
    local d, u = table.unpack(pq:pop())
    if not visited[u] then
      visited[u] = true
      for _, e in ipairs(graph[u] or {}) do
        local nd = d + e.w
        if dist[e.to] == nil or nd < dist[e.to] then
          dist[e.to] = nd
          prevn[e.to] = u
          pq:push({nd, e.to})
        end
      end
    end
  end
  return dist, prevn
end

local function path(prevn, src, dst)
  local p = {dst}
  while p[1] ~= src do
    local before = prevn[p[1]]
    if not before then return nil end
    table.insert(p, 1, before)
  end
  return table.concat(p, "->")
end

local dist, prevn = dijkstra("A")
local nodes = {}
for n in pairs(graph) do nodes[#nodes + 1] = n end
table.sort(nodes)
for _, n in ipairs(nodes) do
  print(n, dist[n] or "unreachable", path(prevn, "A", n) or "-")
end

-- Prim's minimum spanning tree on the connected component of A
local function prim(start)
  local in_tree = {[start] = true}
  local pq = Heap.new(function(a, b)
    if a.w ~= b.w then return a.w < b.w end
    return a.from .. a.to < b.from .. b.to
  end)
  for _, e in ipairs(graph[start]) do pq:push({w = e.w, from = start, to = e.to}) end
  local total, chosen = 0, {}
  while not pq:empty() do
    local e = pq:pop()
    if not in_tree[e.to] then
      in_tree[e.to] = true
      total = total + e.w
      chosen[#chosen + 1] = e.from .. e.to .. "(" .. e.w .. ")"
      for _, n in ipairs(graph[e.to]) do
        if not in_tree[n.to] then pq:push({w = n.w, from = e.to, to = n.to}) end
      end
    end
  end
  return total, chosen
end
local total, chosen = prim("A")
print("mst", total, table.concat(chosen, " "))

-- grid shortest path with obstacles (unit weights, via the same heap)
local grid = {
  "S..#......",
  ".#.#.####.",
  ".#...#....",
  ".####.#.#.",
  "......#.#E",
}
local rows, cols = #grid, #grid[1]
local function at(r, c) return grid[r]:sub(c, c) end
local sr, sc, er, ec
for r = 1, rows do
  for c = 1, cols do
    if at(r, c) == "S" then sr, sc = r, c elseif at(r, c) == "E" then er, ec = r, c end
  end
end
local best = {}
local pq = Heap.new(function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] * 100 + a[3] < b[2] * 100 + b[3]) end)
pq:push({0, sr, sc})
best[sr * 100 + sc] = 0
while not pq:empty() do
  local d, r, c = table.unpack(pq:pop())
  if r == er and c == ec then print("grid distance", d) break end
  for _, dlt in ipairs({{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) do
    local nr, nc = r + dlt[1], c + dlt[2]
    if nr >= 1 and nr <= rows and nc >= 1 and nc <= cols and at(nr, nc) ~= "#" then
      local key = nr * 100 + nc
      if best[key] == nil or d + 1 < best[key] then
        best[key] = d + 1
        pq:push({d + 1, nr, nc})
      end
    end
  end
end
local reached = 0
for _ in pairs(best) do reached = reached + 1 end
print("cells reached", reached)
