-- app: prime sieve and number theory helpers

local function sieve(n)
  local is = {}
  for i = 2, n do is[i] = true end
  for i = 2, math.floor(math.sqrt(n)) do
    if is[i] then
      for j = i * i, n, i do is[j] = false end
    end
  end
  local primes = {}
  for i = 2, n do if is[i] then primes[#primes + 1] = i end end
  return primes, is
end

local primes, is_prime = sieve(20000)
print("primes below 20000:", #primes)
print("first 15:", table.concat(primes, " ", 1, 15))
print("last 3:", table.concat(primes, " ", #primes - 2))

local counts = {}
for _, limit in ipairs({10, 100, 1000, 10000, 20000}) do
  local c = 0
  for _, p in ipairs(primes) do if p <= limit then c = c + 1 else break end end
  counts[#counts + 1] = limit .. ":" .. c
end
print(table.concat(counts, " "))

-- twin primes and gaps
local twins, maxgap, gapat = 0, 0, 0
for i = 2, #primes do
  local gap = primes[i] - primes[i - 1]
  if gap == 2 then twins = twins + 1 end
  if gap > maxgap then maxgap, gapat = gap, primes[i - 1] end
end
print("twin pairs:", twins, "max gap:", maxgap, "after", gapat)

-- factorization
local function factor(n)
  local fs = {}
  for _, p in ipairs(primes) do
    if p * p > n then break end
    while n % p == 0 do fs[#fs + 1] = p; n = n // p end
  end
  if n > 1 then fs[#fs + 1] = n end
  return fs
end
for _, n in ipairs({360, 97, 1001, 65536, 999999, 2147483647, 600851475143}) do
  print(n, table.concat(factor(n), "*"))
end

-- Goldbach partitions
local function goldbach(n)
  for _, p in ipairs(primes) do
    if p > n // 2 then break end
    if is_prime[n - p] then return p, n - p end
  end
end
local gb = {}
for n = 4, 40, 6 do local a, b = goldbach(n); gb[#gb + 1] = n .. "=" .. a .. "+" .. b end
print(table.concat(gb, " "))

-- Euler's totient and divisor sums
local function totient(n)
  local result = n
  local seen = {}
  for _, p in ipairs(factor(n)) do
    if not seen[p] then seen[p] = true; result = result // p * (p - 1) end
  end
  return result
end
local tot = {}
for n = 1, 12 do tot[n] = totient(n) end
print("phi:", table.concat(tot, " "))

local function sigma(n)
  local s = 0
  for d = 1, math.floor(math.sqrt(n)) do
    if n % d == 0 then
      s = s + d
      if d ~= n // d then s = s + n // d end
    end
  end
  return s
end
local perfect = {}
for n = 2, 10000 do if sigma(n) - n == n then perfect[#perfect + 1] = n end end
print("perfect:", table.concat(perfect, " "))

-- modular exponentiation and a Fermat test that agrees with the sieve
local function powmod(b, e, m)
  local r = 1
  b = b % m
  while e > 0 do
    if e & 1 == 1 then r = r * b % m end
    b = b * b % m
    e = e >> 1
  end
  return r
end
print(powmod(2, 10, 1000), powmod(3, 200, 1000007), powmod(7, 0, 13))
local pseudo = {}
for n = 3, 3000, 2 do
  if powmod(2, n - 1, n) == 1 and not is_prime[n] then pseudo[#pseudo + 1] = n end
end
print("base-2 pseudoprimes:", table.concat(pseudo, " "))

-- segmented count using a bit-packed sieve in integers
local bits = {}
local N = 5000
for i = 0, N // 64 do bits[i] = -1 end
local function clear(i) bits[i >> 6] = bits[i >> 6] & ~(1 << (i & 63)) end
local function test(i) return bits[i >> 6] & (1 << (i & 63)) ~= 0 end
clear(0); clear(1)
for i = 2, 70 do if test(i) then for j = i * i, N, i do clear(j) end end end
local c = 0
for i = 0, N do if test(i) then c = c + 1 end end
print("bit sieve below 5000:", c, c == #sieve(N))
