-- errors: assert returns its arguments or raises its message
print(assert(1, "unused"), assert("v", 2, 3))
print(pcall(assert, false))
print(pcall(assert, nil, "custom message"))
print(pcall(assert, false, 42))
local tbl = {}
local ok, e = pcall(assert, false, tbl)
print(ok, e == tbl)
print(pcall(assert))
print(pcall(assert, 1 == 2, "math is broken"))
print(select("#", assert(1, 2, 3)))
print(pcall(function() assert(tonumber("x"), "not a number: x") end))
