-- permute: generate every permutation of 1..N by recursive swapping (recursion, array swaps)
local n = tonumber(arg and arg[1]) or 10

local a = {}
local count, checksum = 0, 0

local function permute(k)
  if k == 1 then
    count = count + 1
    checksum = (checksum + a[1] * 3 + a[n] * 7 + count % 11) % 1000000007
    return
  end
  for i = 1, k do
    permute(k - 1)
    -- Heap's algorithm: swap depends on the parity of k
    local j = (k % 2 == 0) and i or 1
    a[j], a[k] = a[k], a[j]
  end
end

for i = 1, n do a[i] = i end
permute(n)
local order = {}
for i = 1, n do order[i] = string.format("%d", a[i]) end
print(string.format("permute(%d): %d permutations, checksum %d, final %s", n, count, checksum,
  table.concat(order, " ")))
