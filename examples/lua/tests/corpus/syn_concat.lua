-- syntax: concatenation is right associative and coerces numbers
print("a" .. "b" .. "c" .. "d")
print(1 .. "", 1.5 .. "", 10 .. 20)
print(-1 .. "", 2^2 .. "x")
local parts = ""
for i = 1, 5 do parts = parts .. i .. (i < 5 and "," or "") end
print(parts)
local s = "x"
s = s .. s .. s
print(s, #s)
print(("ab"):rep(2) .. "|" .. ("cd"):upper())
print("" .. "" == "", #("" .. ""))
print(math.maxinteger .. "", math.mininteger .. "", 1e100 .. "")
