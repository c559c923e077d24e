-- numbers: numeric for with float bounds or steps
for i = 0, 1, 0.25 do io.write(i, " ") end print()
for i = 1.0, 3 do io.write(i, " ") end print()
for i = 1, 2, 0.5 do io.write(i, " ") end print()
for i = 3, 1, -0.5 do io.write(i, " ") end print()
local n = 0
for i = 0, 1, 0.1 do n = n + 1 end
print("0.1 steps", n)
for i = 1, 3 do io.write(math.type(i), " ") end print()
for i = 1.0, 2 do io.write(math.type(i), " ") end print()
for i = 1, 2, 1.0 do io.write(math.type(i), " ") end print()
for i = 1, math.huge do if i > 3 then break end io.write(i, " ") end print()
for i = -1, -math.huge, -1 do if i < -3 then break end io.write(i, " ") end print()
for i = 1, 0.5 do print("never") end
