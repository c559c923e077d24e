-- numbers: math.type distinguishes integers and floats
print(math.type(1), math.type(1.0), math.type("1"), math.type(nil), math.type({}))
print(math.type(2^31), math.type(1 // 1), math.type(1.0 // 1), math.type(-0.0))
print(math.type(3 % 2), math.type(3 % 2.0), math.type(tonumber("5")), math.type(tonumber("5.0")))
print(math.type(math.maxinteger), math.type(math.pi), math.type(math.huge))
print(pcall(math.type))
