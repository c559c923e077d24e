-- tables: table.insert and table.remove positions
local t = {}
table.insert(t, "a")
table.insert(t, "c")
table.insert(t, 2, "b")
table.insert(t, 1, "start")
table.insert(t, #t + 1, "end")
print(#t, table.concat(t, ","))
print(table.remove(t), table.concat(t, ","))
print(table.remove(t, 1), table.concat(t, ","))
print(table.remove(t, 2), table.concat(t, ","))
print(table.remove({}), table.remove({}, 0), #t)
print(table.remove(t, #t + 1), table.concat(t, ","))
local q = {1, 2, 3, 4, 5}
while #q > 0 do io.write(table.remove(q, 1), " ") end print()
local u = {n = 0}
print(table.remove(u, 0), select("#", table.remove(u)))
