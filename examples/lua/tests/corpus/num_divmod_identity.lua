-- numbers: a == (a // b) * b + a % b for many integer pairs
local bad = 0
local count = 0
for a = -20, 20 do
  for b = -7, 7 do
    if b ~= 0 then
      count = count + 1
      if (a // b) * b + a % b ~= a then bad = bad + 1 end
      local r = a % b
      if r ~= 0 and (r < 0) ~= (b < 0) then bad = bad + 1 end
    end
  end
end
print(count, bad)
local fbad = 0
for a = -5, 5, 0.5 do
  for _, b in ipairs({-2.5, -1, 0.75, 3}) do
    local q, r = a // b, a % b
    if math.abs(q * b + r - a) > 1e-12 then fbad = fbad + 1 end
  end
end
print(fbad)
