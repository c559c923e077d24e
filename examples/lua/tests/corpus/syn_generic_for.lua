-- syntax: generic for with custom iterators and the explicit triple
local function range(n)
  local i = 0
  return function()
    i = i + 1
    if i <= n then return i end
  end
end
for v in range(4) do io.write(v, " ") end print()
-- stateless iterator: f, s, control
local function iter(s, c)
  if c < s then return c + 1, (c + 1) * (c + 1) end
end
for i, sq in iter, 5, 0 do io.write(i, "=", sq, " ") end print()
for i, v in ipairs({"a", "b", "c"}) do io.write(i, v, " ") end print()
-- extra values are dropped, missing are nil
for a, b, c in function(_, x) if not x then return 1, 2 end end do
  print(a, b, c)
end
local t = {10, 20, 30}
local total = 0
for _, v in next, t do total = total + v end
print(total)
-- multiple returns from a call in the explist
local function triple() return iter, 2, 0 end
for i, sq in triple() do io.write(i, ":", sq, " ") end print()
