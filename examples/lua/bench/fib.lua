-- fib: naive doubly recursive Fibonacci (call overhead, integer add, comparisons)
local n = tonumber(arg and arg[1]) or 36

local function fib(k)
  if k < 2 then return k end
  return fib(k - 1) + fib(k - 2)
end

print(string.format("fib(%d) = %d", n, fib(n)))
