-- arg: arguments are strings; convert them explicitly
local sum = 0
for i, a in ipairs(arg) do
  print(i, a, type(a), math.type(tonumber(a)))
  sum = sum + a
end
print("sum", sum)
