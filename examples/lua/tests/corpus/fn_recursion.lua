-- functions: plain recursion
local function fact(n) if n == 0 then return 1 end return n * fact(n - 1) end
print(fact(0), fact(5), fact(20), fact(21))
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(1), fib(10), fib(20))
local function hanoi(n, from, to, via, moves)
  if n == 0 then return moves end
  moves = hanoi(n - 1, from, via, to, moves)
  moves = moves + 1
  return hanoi(n - 1, via, to, from, moves)
end
print(hanoi(10, "A", "C", "B", 0))
local function ackermann(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ackermann(m - 1, 1) end
  return ackermann(m - 1, ackermann(m, n - 1))
end
print(ackermann(2, 3), ackermann(3, 3))
local function gcd(a, b) if b == 0 then return a end return gcd(b, a % b) end
print(gcd(48, 18), gcd(17, 5), gcd(0, 9))
