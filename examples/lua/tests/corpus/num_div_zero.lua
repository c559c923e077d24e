-- numbers: division by zero: float results vs integer errors
print(1 / 0, -1 / 0, 0 / 0 ~= 0 / 0, 1 / -0.0)
print(1.0 // 0, -1.0 // 0, 1 % 0.0 ~= 1 % 0.0)
print(pcall(function() return 1 // 0 end))
print(pcall(function() return 1 % 0 end))
print(pcall(function() local z = 0; return 10 // z end))
print(pcall(function() local z = 0; return 10 % z end))
print(0 / 0 == 0 / 0, 5 // 0.0, -5 // 0.0, 0 // 0.0 ~= 0 // 0.0)
print(3 / 0 > math.maxinteger, 1 / math.huge, -1 / math.huge)
