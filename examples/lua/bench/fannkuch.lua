-- fannkuch: pancake flips over all permutations (fannkuch-redux): small arrays, swaps, integer loops.
-- The whole count is done 3 times (N=10 alone would take too long for the default).
local n = tonumber(arg and arg[1]) or 9

local function fannkuch(size)
  local perm, perm1, count = {}, {}, {}
  for i = 1, size do perm1[i] = i; perm[i] = i; count[i] = 0 end
  local maxflips, checksum, permcount = 0, 0, 0
  local r = size
  while true do
    while r ~= 1 do
      count[r] = r
      r = r - 1
    end
    for i = 1, size do perm[i] = perm1[i] end
    local flips = 0
    local k = perm[1]
    while k ~= 1 do
      local i, j = 1, k
      while i < j do
        perm[i], perm[j] = perm[j], perm[i]
        i = i + 1
        j = j - 1
      end
      flips = flips + 1
      k = perm[1]
    end
    if flips > maxflips then maxflips = flips end
    if permcount % 2 == 0 then checksum = checksum + flips else checksum = checksum - flips end
    -- next permutation in counting order
    while true do
      if r == size then return checksum, maxflips end
      local p0 = perm1[1]
      for i = 1, r do perm1[i] = perm1[i + 1] end
      perm1[r + 1] = p0
      count[r + 1] = count[r + 1] - 1
      if count[r + 1] > 0 then break end
      r = r + 1
    end
    permcount = permcount + 1
  end
end

local checksum, maxflips
for _ = 1, 3 do checksum, maxflips = fannkuch(n) end
print(string.format("%d\nPfannkuchen(%d) = %d", checksum, n, maxflips))
