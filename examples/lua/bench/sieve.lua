-- sieve: sieve of Eratosthenes over a boolean table, repeated N times (array stores, integer loops)
local n = tonumber(arg and arg[1]) or 400
local limit = 100000

local function sieve(m)
  local composite = {}
  for i = 1, m do composite[i] = false end
  local count = 0
  for i = 2, m do
    if not composite[i] then
      count = count + 1
      for j = i * i, m, i do composite[j] = true end
    end
  end
  return count
end

local total = 0
for _ = 1, n do total = total + sieve(limit) end
print(string.format("primes below %d: %d (x%d = %d)", limit, sieve(limit), n, total))
