-- hash: a hash-table workload on string keys: count generated words, then walk the table with pairs,
-- delete keys, and look up present and absent keys
local n = tonumber(arg and arg[1]) or 2000000

local seed = 7
local function rand(m) -- Park-Miller, exact in doubles
  seed = (seed * 16807) % 2147483647
  return seed % m
end

local syllables = { "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "xe", "ya", "zo", "qua", "bri", "st" }
local ns = #syllables

local counts = {}
local words = 0
for _ = 1, n do
  local len = rand(4) + 1
  local w = syllables[rand(ns) + 1]
  for _ = 2, len do w = w .. syllables[rand(ns) + 1] end
  counts[w] = (counts[w] or 0) + 1
  words = words + 1
end

-- walk with pairs: distinct words, total, the most frequent (ties broken by the smaller word)
local distinct, total, weighted = 0, 0, 0
local best, best_count = nil, -1
for w, c in pairs(counts) do
  distinct = distinct + 1
  total = total + c
  weighted = weighted + c * #w
  if c > best_count or (c == best_count and w < best) then best, best_count = w, c end
end

-- delete every word seen fewer than 5 times (assigning nil to existing fields during traversal is allowed)
local removed = 0
for w, c in pairs(counts) do
  if c < 5 then
    counts[w] = nil
    removed = removed + 1
  end
end

-- look ups, present and absent, with a second table keyed by derived strings
local hits, misses = 0, 0
local lengths = {}
for i = 1, n do
  local w = syllables[i % ns + 1] .. syllables[(i * 7) % ns + 1] .. syllables[(i * i) % 13 + 1]
  if i % 3 == 0 then w = w .. "zz" end
  if counts[w] then hits = hits + 1 else misses = misses + 1 end
  local key = "len" .. #w
  lengths[key] = (lengths[key] or 0) + 1
end

local keys = {}
for k in pairs(lengths) do keys[#keys + 1] = k end
table.sort(keys)
local parts = {}
for i = 1, #keys do parts[i] = string.format("%s=%d", keys[i], lengths[keys[i]]) end

local left = 0
for _ in pairs(counts) do left = left + 1 end

print(string.format("hash(%d): %d words, %d distinct, weighted %d, most %s x%d", n, words, distinct, weighted,
  best, best_count))
print(string.format("removed %d, left %d, hits %d, misses %d, %s", removed, left, hits, misses,
  table.concat(parts, " ")))
