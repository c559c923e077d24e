-- loops: nested numeric for loops over integer arithmetic (no calls, no tables)
local n = tonumber(arg and arg[1]) or 6000

local acc = 0
local evens = 0
for i = 1, n do
  local row = 0
  for j = 1, n do
    local t = i * j + (i - j) % 7
    if t % 2 == 0 then evens = evens + 1 end
    row = row + t % 1000
  end
  for k = n, 1, -3 do
    row = row - k % 5
  end
  acc = (acc * 7 + row) % 1000003
end

print(string.format("loops(%d): acc=%d evens=%d", n, acc, evens))
