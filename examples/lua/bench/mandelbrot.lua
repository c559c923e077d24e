-- mandelbrot: escape-time iteration on a grid (float arithmetic), pixels packed into bytes for a checksum
local n = tonumber(arg and arg[1]) or 1200

local checksum, inside_count = 0, 0
local byte, nbits = 0, 0
for y = 0, n - 1 do
  local ci = 2.0 * y / n - 1.0
  for x = 0, n - 1 do
    local cr = 2.0 * x / n - 1.5
    local zr, zi, zr2, zi2 = 0.0, 0.0, 0.0, 0.0
    local inside = 1
    for _ = 1, 50 do
      zi = 2.0 * zr * zi + ci
      zr = zr2 - zi2 + cr
      zr2 = zr * zr
      zi2 = zi * zi
      if zr2 + zi2 > 4.0 then
        inside = 0
        break
      end
    end
    inside_count = inside_count + inside
    byte = byte * 2 + inside
    nbits = nbits + 1
    if nbits == 8 then
      checksum = (checksum * 31 + byte) % 1000000007
      byte, nbits = 0, 0
    end
  end
  if nbits > 0 then
    while nbits < 8 do byte = byte * 2; nbits = nbits + 1 end
    checksum = (checksum * 31 + byte) % 1000000007
    byte, nbits = 0, 0
  end
end
print(string.format("mandelbrot(%d): inside=%d checksum=%d", n, inside_count, checksum))
