-- syntax: indexing and calling the results of expressions
local t = {f = function() return {g = function() return "deep" end} end}
print(t.f().g())
print(({10, 20, 30})[2])
print(("abc"):upper())
print((function() return {x = 5} end)().x)
local arr = {{1, 2}, {3, 4}}
print(arr[2][1], #arr[1])
local s = ("%s=%s"):format("k", "v"):upper()
print(s)
print(#{n = 1}, ({...})[1])
