-- errors: an uncaught runtime error (arithmetic on a nil global)
local total = 0
for i = 1, 3 do total = total + i end
print(total)
total = total + missing_value
