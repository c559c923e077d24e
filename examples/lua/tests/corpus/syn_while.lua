-- syntax: while loops, break, nested loops
local i = 0
while i < 5 do i = i + 1 end
print(i)
local n, steps = 27, 0
while n ~= 1 do
  if n % 2 == 0 then n = n // 2 else n = 3 * n + 1 end
  steps = steps + 1
end
print("collatz 27 steps", steps)
local k = 0
while true do
  k = k + 1
  if k >= 100 then break end
end
print(k)
local out = {}
local a = 0
while a < 3 do
  a = a + 1
  local b = 0
  while true do
    b = b + 1
    if b > a then break end
    out[#out + 1] = a .. ":" .. b
  end
end
print(table.concat(out, " "))
while false do print("never") end
print("end")
