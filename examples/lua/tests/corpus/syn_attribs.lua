-- syntax: <const> local attribute
local limit <const> = 10
local name <const>, other = "n", 5
local sum = 0
for i = 1, limit do sum = sum + i end
print(sum, name, other)
other = 6
print(other)
local function f()
  local k <const> = "captured"
  return function() return k end
end
print(f()())
local big <const> = math.maxinteger
print(big)
