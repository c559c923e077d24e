-- library: ipairs on strings-as-keys tables, after removals and with holes
local t = {"a", "b", "c", "d"}
table.remove(t, 2)
for i, v in ipairs(t) do io.write(i, v, " ") end print()
t[2] = nil
for i, v in ipairs(t) do io.write(i, v, " ") end print()
local n = 0
for i, v in ipairs({[1] = 1, [2] = 2, [4] = 4}) do n = n + 1 end
print(n)
