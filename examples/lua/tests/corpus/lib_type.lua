-- library: type of every kind of value
print(type(nil), type(true), type(1), type(1.5), type("s"), type({}), type(print), type(function() end))
print(type(type), type(io.stdout), type(type(nil)))
print(pcall(type))
