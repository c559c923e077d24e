-- tables: table.sort with default order and comparators
local nums = {5, 2, 8, 1, 9, 3, 7, 4, 6, 0}
table.sort(nums)
print(table.concat(nums, " "))
table.sort(nums, function(a, b) return a > b end)
print(table.concat(nums, " "))
local words = {"delta", "alpha", "charlie", "bravo"}
table.sort(words)
print(table.concat(words, " "))
table.sort(words, function(a, b) return #a < #b or (#a == #b and a < b) end)
print(table.concat(words, " "))
local recs = {{n = "x", a = 3}, {n = "y", a = 1}, {n = "z", a = 2}}
table.sort(recs, function(p, q) return p.a < q.a end)
for _, r in ipairs(recs) do io.write(r.n, r.a, " ") end print()
local mixed = {3.5, 1, 2.25, -1, 2}
table.sort(mixed)
print(table.concat(mixed, " "))
local one, none = {42}, {}
table.sort(one); table.sort(none)
print(one[1], #none)
local lcg, big = 12345, {}
for i = 1, 500 do lcg = (lcg * 1103515245 + 12345) % 2147483648; big[i] = lcg % 1000 end
table.sort(big)
local ok = true
for i = 2, #big do if big[i - 1] > big[i] then ok = false end end
print(ok, big[1], big[250], big[500])
