-- tables: table.concat with separators, ranges, numbers and errors
local t = {"a", "b", "c", "d"}
print(table.concat(t), table.concat(t, ", "), table.concat(t, "-", 2), table.concat(t, "-", 2, 3))
print("[" .. table.concat({}) .. "]", "[" .. table.concat(t, ",", 3, 2) .. "]")
print(table.concat({1, 2.5, "x", 3}, " "))
print(pcall(table.concat, {1, {}, 3}))
print(pcall(table.concat, {1, 2}, ",", 1, 3))
print(pcall(table.concat, {true}))
print(table.concat({"x"}, ",", 1, 1), table.concat({[5] = "five"}, "", 5, 5))
print(table.concat({"a", "b"}, 0), table.concat({1, 2, 3}, "\0"):byte(1, -1))
