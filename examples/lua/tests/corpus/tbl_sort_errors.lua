-- tables: table.sort errors when values cannot be compared
print(pcall(table.sort, {{}, {}}))
print(pcall(table.sort, {1, 2, 3}, 42))
print(pcall(table.sort, "notatable"))
print(pcall(table.sort, {3, 1, 2}, function(a, b) error("comparator saw " .. math.type(a), 0) end))
