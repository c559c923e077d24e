-- app: Conway's Game of Life on a small torus, with pattern detection

local Life = {}
Life.__index = Life

function Life.new(w, h)
  local g = setmetatable({w = w, h = h, cells = {}, generation = 0}, Life)
  for y = 1, h do
    g.cells[y] = {}
    for x = 1, w do g.cells[y][x] = false end
  end
  return g
end

function Life:set(pattern, ox, oy)
  local y = oy
  for line in pattern:gmatch("[^\n]+") do
    for x = 1, #line do
      if line:sub(x, x) == "O" then self.cells[y][ox + x - 1] = true end
    end
    y = y + 1
  end
  return self
end

function Life:neighbours(x, y)
  local n = 0
  for dy = -1, 1 do
    for dx = -1, 1 do
      if dx ~= 0 or dy ~= 0 then
        local nx = (x + dx - 1) % self.w + 1
        local ny = (y + dy - 1) % self.h + 1
        if self.cells[ny][nx] then n = n + 1 end
      end
    end
  end
  return n
end

function Life:step()
  local nxt = {}
  for y = 1, self.h do
    nxt[y] = {}
    for x = 1, self.w do
      local n = self:neighbours(x, y)
      local alive = self.cells[y][x]
      nxt[y][x] = (alive and (n == 2 or n == 3)) or (not alive and n == 3)
    end
  end
  self.cells = nxt
  self.generation = self.generation + 1
  return self
end

function Life:population()
  local c = 0
  for y = 1, self.h do for x = 1, self.w do if self.cells[y][x] then c = c + 1 end end end
  return c
end

function Life:render()
  local rows = {}
  for y = 1, self.h do
    local r = {}
    for x = 1, self.w do r[x] = self.cells[y][x] and "#" or "." end
    rows[y] = table.concat(r)
  end
  return table.concat(rows, "\n")
end

function Life:key()
  local parts = {}
  for y = 1, self.h do
    local bits = 0
    for x = 1, self.w do if self.cells[y][x] then bits = bits | (1 << (x - 1)) end end
    parts[y] = string.format("%x", bits)
  end
  return table.concat(parts, ":")
end

-- a glider travelling across an 8x8 torus returns to its start after 32 generations
local g = Life.new(8, 8):set(".O.\n..O\nOOO", 1, 1)
print(g:render())
local start = g:key()
for i = 1, 4 do g:step() end
print("after 4 generations (moved by 1,1):")
print(g:render())
for i = 5, 32 do g:step() end
print("back to start after 32:", g:key() == start, "population", g:population())

-- a blinker oscillates with period 2
local b = Life.new(5, 5):set("OOO", 2, 3)
local k0 = b:key()
b:step()
print("blinker vertical:")
print(b:render())
b:step()
print("period 2:", b:key() == k0)

-- the R-pentomino on a larger board: population history
local r = Life.new(24, 16):set(".OO\nOO.\n.O.", 11, 7)
local history = {}
for i = 1, 30 do
  r:step()
  if i % 10 == 0 then history[#history + 1] = r:population() end
end
print("r-pentomino populations:", table.concat(history, " "))

-- cycle detection on a random soup (deterministic LCG)
local soup = Life.new(12, 12)
local seed = 2024
for y = 1, 12 do
  for x = 1, 12 do
    seed = (seed * 1103515245 + 12345) % 2147483648
    soup.cells[y][x] = (seed >> 16) % 3 == 0
  end
end
local seen = {}
local gen = 0
while gen < 500 do
  local k = soup:key()
  if seen[k] then
    print(string.format("soup repeats: generation %d equals generation %d (period %d), population %d",
      gen, seen[k], gen - seen[k], soup:population()))
    break
  end
  seen[k] = gen
  soup:step()
  gen = gen + 1
end
print(soup:render())
