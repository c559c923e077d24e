-- A loop whose call argument is a float too wide for an immediate (a / 2 of an odd a), computed
-- into the register below a builtin fetched through a table (math.floor): the bridge of the guard
-- on that float's width stored the boxed float through the register holding the frame's array,
-- and the frame's stale copy of the register (the table) was written back over it before the call
-- (the JIT passed `math` to floor: "bad argument #1 to 'floor' (number expected, got table)").
local v1 = 0xABCD
local function step()
  if v1 % 2 == 0 then
    v1 = v1 // 2
    return
  end
  local r, a, b = 0, v1 // 2, 0xD008
  for _ = 1, 16 do
    if a % 2 ~= b % 2 then r = r + 1 end
    a, b = math.floor(a / 2), b // 2
  end
  v1 = r + 0xABC0
end
local sum = 0
for _ = 1, 400 do
  step()
  sum = sum + v1
end
print(v1, sum)
