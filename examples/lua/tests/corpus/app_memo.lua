-- app: memoization and dynamic programming with tables

local function memoize(f)
  local cache = {}
  local hits, misses = 0, 0
  local function wrapped(...)
    local key = table.concat({...}, ",")
    local v = cache[key]
    if v ~= nil then hits = hits + 1; return v end
    misses = misses + 1
    v = f(...)
    cache[key] = v
    return v
  end
  local function stats() return hits, misses end
  return wrapped, stats
end

-- Fibonacci
local fib, fib_stats
fib, fib_stats = memoize(function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end)
print("fib(90) =", fib(90), "hits/misses", fib_stats())

-- grid paths with obstacles
local paths
paths = memoize(function(r, c)
  if r == 1 or c == 1 then return 1 end
  if (r * 5 + c * 3) % 11 == 0 then return 0 end
  return paths(r - 1, c) + paths(r, c - 1)
end)
print("paths(12,12) =", paths(12, 12))

-- Collatz chain lengths with a shared cache
local collatz_cache = {[1] = 1}
local function collatz(n)
  local c = collatz_cache[n]
  if c then return c end
  local nxt = n % 2 == 0 and n // 2 or 3 * n + 1
  c = 1 + collatz(nxt)
  collatz_cache[n] = c
  return c
end
local best, bestn = 0, 0
for n = 1, 30000 do
  local c = collatz(n)
  if c > best then best, bestn = c, n end
end
print("longest collatz below 30000:", bestn, best)

-- longest common subsequence with reconstruction
local function lcs(a, b)
  local m, n = #a, #b
  local dp = {}
  for i = 0, m do dp[i] = {} for j = 0, n do dp[i][j] = 0 end end
  for i = 1, m do
    for j = 1, n do
      if a:sub(i, i) == b:sub(j, j) then dp[i][j] = dp[i - 1][j - 1] + 1
      else dp[i][j] = math.max(dp[i - 1][j], dp[i][j - 1]) end
    end
  end
  local out, i, j = {}, m, n
  while i > 0 and j > 0 do
    if a:sub(i, i) == b:sub(j, j) then table.insert(out, 1, a:sub(i, i)); i = i - 1; j = j - 1
    elseif dp[i - 1][j] >= dp[i][j - 1] then i = i - 1
    else j = j - 1 end
  end
  return dp[m][n], table.concat(out)
end
print("lcs:", lcs("AGGTABQMZ", "GXTXAYBMQZ"))
print("lcs:", lcs("the quick brown fox", "a quick brown dog"))

-- edit distance
local function edit(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = {[0] = i}
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end
for _, p in ipairs({{"kitten", "sitting"}, {"flaw", "lawn"}, {"", "abc"}, {"same", "same"}, {"intention", "execution"}}) do
  print("edit", p[1], p[2], edit(p[1], p[2]))
end

-- 0/1 knapsack
local function knapsack(items, cap)
  local best = {}
  for w = 0, cap do best[w] = 0 end
  for _, it in ipairs(items) do
    for w = cap, it.w, -1 do
      local v = best[w - it.w] + it.v
      if v > best[w] then best[w] = v end
    end
  end
  return best[cap]
end
local items = {{w = 12, v = 4}, {w = 2, v = 2}, {w = 1, v = 1}, {w = 1, v = 2}, {w = 4, v = 10}}
print("knapsack 15:", knapsack(items, 15), "knapsack 5:", knapsack(items, 5))

-- coin change (number of ways and minimum coins)
local function ways(coins, amount)
  local w = {[0] = 1}
  for i = 1, amount do w[i] = 0 end
  for _, c in ipairs(coins) do
    for a = c, amount do w[a] = w[a] + w[a - c] end
  end
  return w[amount]
end
local function min_coins(coins, amount)
  local m = {[0] = 0}
  for a = 1, amount do
    m[a] = math.huge
    for _, c in ipairs(coins) do
      if c <= a and m[a - c] + 1 < m[a] then m[a] = m[a - c] + 1 end
    end
  end
  return m[amount]
end
print("ways 100:", ways({1, 5, 10, 25, 50}, 100), "min coins 63:", min_coins({1, 5, 10, 21, 25}, 63))

-- partition numbers via memoized recursion with two arguments
local part
part = memoize(function(n, k)
  if n == 0 then return 1 end
  if n < 0 or k == 0 then return 0 end
  return part(n - k, k) + part(n, k - 1)
end)
local ps = {}
for n = 1, 15 do ps[n] = part(n, n) end
print("partitions:", table.concat(ps, " "))
print("p(100) =", part(100, 100))

-- Pascal's triangle rows cached in a table with __index
local pascal = setmetatable({[0] = {[0] = 1}}, {__index = function(t, n)
  local prev = t[n - 1]
  local row = {[0] = 1, [n] = 1}
  for k = 1, n - 1 do row[k] = prev[k - 1] + prev[k] end
  rawset(t, n, row)
  return row
end})
local r10 = {}
for k = 0, 10 do r10[#r10 + 1] = pascal[10][k] end
print("pascal 10:", table.concat(r10, " "))
print("C(60,30) =", pascal[60][30])
