-- numbers: bitwise operators on integers (64-bit, logical shifts)
print(0xFF & 0x0F, 0xF0 | 0x0F, 0xFF ~ 0x0F, ~0)
print(1 << 62, 1 << 63, 1 << 64, 1 << 100, 1 << -1, 2 >> -1)
print(-1 >> 1, -1 >> 63, -1 >> 64, -1 << 63)
print(math.mininteger >> 63, math.maxinteger << 1, 5 >> 0, 5 << 0)
print(string.format("%016x", 0x0123456789ABCDEF ~ -1))
print(~math.maxinteger == math.mininteger, ~math.mininteger)
local function popcount(x)
  local c = 0
  while x ~= 0 do c = c + (x & 1); x = x >> 1 end
  return c
end
print(popcount(0), popcount(255), popcount(-1), popcount(math.mininteger))
local h = 2166136261
for _, b in ipairs({104, 101, 108, 108, 111}) do h = ((h ~ b) * 16777619) & 0xFFFFFFFF end
print(h)
