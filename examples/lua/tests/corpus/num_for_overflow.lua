-- numbers: for loops near the integer limits terminate without overflow
local max, min = math.maxinteger, math.mininteger
for i = max - 2, max do print(i) end
for i = min + 2, min, -1 do print(i) end
local c = 0
for i = max - 1, math.huge do c = c + 1 end
print("to huge", c)
c = 0
for i = min, min + 10, 5 do c = c + 1 end
print("from min", c)
c = 0
for i = 1, max, max // 2 do c = c + 1 end
print("big step", c)
c = 0
for i = max, max - 10, min do c = c + 1 end
print("min step", c)
c = 0
for i = 0, max, max do c = c + 1 end
print("max step", c)
for i = max, max do print("single", i) end
c = 0
for i = min, min + 2, max do c = c + 1 end
print(c)
