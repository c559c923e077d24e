-- tables: argument errors from table.insert / table.remove
local t = {1, 2}
print(pcall(table.insert, t, 5, "x"))
print(pcall(table.insert, t, 0, "x"))
print(pcall(table.insert, t, 1, 2, 3))
print(pcall(table.insert, t))
print(pcall(table.insert, nil, 1))
print(pcall(table.insert, "str", 1))
print(pcall(table.remove, t, 5))
print(pcall(table.insert, t, "2", "x"))
print(pcall(table.insert, t, 1.5, "x"))
print(table.concat(t, ","))
