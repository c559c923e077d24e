-- strings: long strings built by rep, concat and gsub
local s = ("0123456789"):rep(10000)
print(#s, s:sub(-3), s:byte(99999), s:find("90", 99990, true))
local t = {}
for i = 1, 5000 do t[i] = i % 10 end
local joined = table.concat(t)
print(#joined, joined:sub(1, 10), joined:sub(-10))
local replaced, n = s:gsub("5", "")
print(#replaced, n)
local count = select(2, s:gsub("012", "%0"))
print(count)
print(#(s .. s), (s .. "x"):sub(-2))
