-- towers: Towers of Hanoi with the pegs as table stacks, checked on every move (recursion, table push/pop)
local n = tonumber(arg and arg[1]) or 23

local pegs
local moves = 0

local function push(peg, disc)
  local top = #peg
  if top > 0 and peg[top] < disc then
    error("cannot put a disc on a smaller one")
  end
  peg[top + 1] = disc
end

local function pop(peg)
  local top = #peg
  local disc = peg[top]
  peg[top] = nil
  return disc
end

local function move(count, from, to, via)
  if count == 1 then
    push(pegs[to], pop(pegs[from]))
    moves = moves + 1
  else
    move(count - 1, from, via, to)
    move(1, from, to, via)
    move(count - 1, via, to, from)
  end
end

local function tower(discs)
  pegs = { {}, {}, {} }
  for d = discs, 1, -1 do push(pegs[1], d) end
  moves = 0
  move(discs, 1, 3, 2)
  local peg = pegs[3]
  local sum = 0
  for i = 1, #peg do sum = sum + peg[i] * i end
  return moves, #pegs[1] + #pegs[2], sum
end

local m, left, sum = tower(n)
print(string.format("towers(%d): %d moves, %d discs left behind, checksum %d", n, m, left, sum))
