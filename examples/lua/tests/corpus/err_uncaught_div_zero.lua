-- errors: uncaught integer division by zero
local a, b = 10, 0
print(a / b)
print(a // b)
