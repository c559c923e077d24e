-- functions: functions as values: map, filter, reduce, compose
local function map(t, f) local r = {} for i, v in ipairs(t) do r[i] = f(v) end return r end
local function filter(t, p) local r = {} for _, v in ipairs(t) do if p(v) then r[#r + 1] = v end end return r end
local function reduce(t, f, init) local acc = init for _, v in ipairs(t) do acc = f(acc, v) end return acc end
local function compose(f, g) return function(...) return f(g(...)) end end
local nums = {}
for i = 1, 10 do nums[i] = i end
local evens = filter(nums, function(x) return x % 2 == 0 end)
print(table.concat(map(evens, function(x) return x * x end), " "))
print(reduce(nums, function(a, b) return a + b end, 0), reduce(nums, math.max, -math.huge))
local inc_then_double = compose(function(x) return x * 2 end, function(x) return x + 1 end)
print(inc_then_double(5))
print(table.concat(map({"a", "b"}, string.upper), ""))
local function apply_n(f, n, x) for _ = 1, n do x = f(x) end return x end
print(apply_n(function(x) return x * 3 end, 4, 1))
