-- numbers: float-to-integer conversions
print(math.tointeger(3.0), math.tointeger(3.5), math.tointeger(-0.0), math.tointeger(7))
print(math.tointeger(2^63), math.tointeger(-2^63), math.tointeger(2^62))
print(math.tointeger(math.huge), math.tointeger(0/0), math.tointeger("x"), math.tointeger({}))
print(3.0 | 0, -2.0 & -1, pcall(function() return 3.5 | 0 end))
print(string.format("%d", 42.0), pcall(string.format, "%d", 42.5))
print(("x"):rep(3.0), pcall(string.rep, "x", 2.5))
local t = {}
t[1.0] = "a"; t[2] = "b"
print(#t, t[1], t[2.0])
print(math.floor(-3.5), math.ceil(-3.5), math.type(math.floor(1e100)))
