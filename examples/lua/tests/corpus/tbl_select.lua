-- tables: select with counts, positive and negative indices
print(select("#"), select("#", nil), select("#", 1, nil, nil))
print(select(1, "a", "b", "c"))
print(select(2, "a", "b", "c"))
print(select(3, "a", "b", "c"))
print(select(4, "a", "b", "c"))
print(select(-1, "a", "b", "c"))
print(select(-3, "a", "b", "c"))
print(pcall(select, -4, "a", "b", "c"))
print(pcall(select, 0, "a"))
print(pcall(select, "x"))
print(select(2.0, "p", "q"))
local function last(...) return (select(-1, ...)) end
print(last(1, 2, 3), last("only"))
