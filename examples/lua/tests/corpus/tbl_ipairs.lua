-- tables: ipairs stops at the first nil and respects __index
local t = {1, 2, nil, 4}
local n = 0
for i, v in ipairs(t) do n = n + 1 end
print(n)
for i, v in ipairs({"a", "b", "c"}) do io.write(i, v, " ") end print()
for i, v in ipairs({}) do print("never") end
local proxy = setmetatable({}, {__index = function(_, i) if i <= 5 then return i * i end end})
for i, v in ipairs(proxy) do io.write(i, ":", v, " ") end print()
local f, s, c = ipairs({})
print(type(f), c)
print(pcall(ipairs))
local mixed = {1, 2, x = "x", 3}
local items = {}
for i, v in ipairs(mixed) do items[#items + 1] = v end
print(table.concat(items, ","))
