-- tables: table.move within a table (overlapping) and between tables
local t = {1, 2, 3, 4, 5}
table.move(t, 2, 4, 1)
print(table.concat(t, ","))
t = {1, 2, 3, 4, 5}
table.move(t, 1, 3, 3)
print(table.concat(t, ","))
local dst = {"a", "b", "c"}
local r = table.move({7, 8, 9}, 1, 3, 2, dst)
print(r == dst, table.concat(dst, ","))
local same = table.move({1, 2}, 1, 0, 5)
print(#same)
local copy = table.move({10, 20, 30}, 1, 3, 1, {})
print(table.concat(copy, " "))
print(pcall(table.move, {}, 1, 2))
