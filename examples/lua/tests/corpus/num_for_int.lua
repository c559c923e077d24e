-- numbers: numeric for with integer bounds and steps
local function run(a, b, c)
  local out = {}
  if c then
    for i = a, b, c do out[#out + 1] = i end
  else
    for i = a, b do out[#out + 1] = i end
  end
  return #out .. ": " .. table.concat(out, ",")
end
print(run(1, 5))
print(run(5, 1))
print(run(5, 1, -1))
print(run(1, 10, 3))
print(run(10, 1, -4))
print(run(0, 0))
print(run(-3, 3, 2))
print(run(1, 3.9))
print(run(1, -0.5, -1))
for i = 1, 2 do print(math.type(i)) end
