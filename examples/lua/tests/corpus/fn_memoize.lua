-- functions: memoization with a table cache
local calls = 0
local function memoize(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n); cache[n] = v end
    return v
  end
end
local fib
fib = memoize(function(n) calls = calls + 1; if n < 2 then return n end return fib(n - 1) + fib(n - 2) end)
print(fib(80), calls)
print(fib(90), calls)
local slow_calls = 0
local square = memoize(function(x) slow_calls = slow_calls + 1 return x * x end)
for i = 1, 10 do square(i % 3) end
print(slow_calls)
