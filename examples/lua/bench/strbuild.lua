-- strbuild: building strings with a buffer table, string.format, table.concat, string.rep and string.sub
local n = tonumber(arg and arg[1]) or 2500000

local names = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta" }

local total_len, checksum, chunks = 0, 0, 0
local buf, nbuf = {}, 0

local function flush()
  local s = table.concat(buf, "", 1, nbuf)
  total_len = total_len + #s
  -- sample some bytes of the joined string
  local step = 97
  for i = 1, #s, step do
    checksum = (checksum * 31 + string.byte(s, i)) % 1000000007
  end
  checksum = (checksum + #string.sub(s, 10, 40)) % 1000000007
  chunks = chunks + 1
  for i = 1, nbuf do buf[i] = nil end
  nbuf = 0
end

for i = 1, n do
  local name = names[i % #names + 1]
  nbuf = nbuf + 1
  if i % 3 == 0 then
    buf[nbuf] = string.format("%s=%d;", name, i)
  elseif i % 3 == 1 then
    buf[nbuf] = string.format("[%05d:%x]", i % 100000, i)
  else
    buf[nbuf] = name .. "-" .. string.rep("x", i % 5) .. tostring(i % 1000)
  end
  if nbuf == 1000 then flush() end
end
if nbuf > 0 then flush() end

print(string.format("strbuild(%d): %d chunks, %d bytes, checksum %d", n, chunks, total_len, checksum))
