-- syntax: numeric for: bounds evaluated once, loop variable is a fresh local
for i = 1, 3 do io.write(i, " ") end print()
for i = 3, 1, -1 do io.write(i, " ") end print()
for i = 1, 0 do print("never") end
for i = 10, 1, -3 do io.write(i, " ") end print()
local n = 3
for i = 1, n do n = 10; io.write(i, " ") end print(n)
for i = 1, 3 do
  local j = i * 2
  i = i * 100   -- assigning to the control variable does not affect iteration
  io.write(j, ":", i, " ")
end
print()
local calls = 0
local function limit() calls = calls + 1; return 4 end
for i = 1, limit() do end
print("limit evaluated", calls)
print(i)  -- global i is untouched (nil)
for i = -2, 2 do io.write(math.type(i), " ") end print()
