-- tables: array part: construction, indexing, length, appending
local t = {10, 20, 30}
print(#t, t[1], t[3], t[4], t[0])
t[#t + 1] = 40
t[#t + 1] = 50
print(#t, t[5])
local squares = {}
for i = 1, 10 do squares[i] = i * i end
print(#squares, squares[7], table.concat(squares, " "))
t[5] = nil
print(#t)
local empty = {}
print(#empty, empty[1])
local a = {}
a[1] = "x"; a[2] = "y"; a[3] = "z"
print(#a, table.concat(a))
local rev = {}
for i = #a, 1, -1 do rev[#rev + 1] = a[i] end
print(table.concat(rev))
