-- numbers: numeric for follows lua5.4's forprep: integer loops when the start and step are integers (the limit is
-- floored or ceiled, clipped to the integer range), float loops otherwise; numeric strings convert
for i = "1", 2 do print(i, math.type(i)) end
for i = 1, "2" do print(i, math.type(i)) end
for i = 1, 2, "1" do print(i, math.type(i)) end
for i = 3, 1.5, -1 do print(i) end
for i = 1, 2.5, 0.5 do print(i) end
for i = -2, -3.5, -1 do print("neg", i) end
for i = 1, 0 / 0, -1 do print("nan limit, step -1", i) break end
for i = 1, 0 / 0 do print("never") end
for i = 1, -math.huge do print("never") end
for i = 1, math.huge, -1 do print("never") end
for i = 5, -math.huge, -3 do print("to -huge", i) if i < 0 then break end end
for i = 1, 1e300, 1 << 62 do print("big", i) end
local c = 0
for _ = math.mininteger, math.maxinteger do c = c + 1 if c > 3 then break end end
print("whole range", c)
c = 0
for _ = math.maxinteger, math.mininteger, -1 do c = c + 1 if c > 3 then break end end
print("whole range down", c)
for i = math.maxinteger - 1, math.maxinteger + 0.0 do print("clipped", i) end
print(pcall(function() for _ = "a", {} do end end))
print(pcall(function() for _ = 1, {}, 0 do end end))
print(pcall(function() for _ = "x", 2, 0 do end end))
print(pcall(function() for _ = 1.0, 2, 0 do end end))
print(pcall(function() for _ = 1, "z" do end end))
print(pcall(function() for _ = 1, 2, {} do end end))
print(pcall(function() for _ = 1, setmetatable({}, {__name = "My"}) do end end))
print(pcall(function() for _ = 1.5, nil do end end))
local n = 0
for i = 1, 3 do
  for j = i, 3.5 do n = n + j end
end
print("nested", n, math.type(n))
