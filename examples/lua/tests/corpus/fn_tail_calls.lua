-- functions: proper tail calls do not grow the stack
local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + 1) end
print(loop(50000, 0))
local function a(n) if n == 0 then return "done a" end return (function(m) return a(m) end)(n - 1) end
print(pcall(a, 100))
local even, odd
function even(n) if n == 0 then return true end return odd(n - 1) end
function odd(n) if n == 0 then return false end return even(n - 1) end
print(even(300001))
local obj = {n = 0}
function obj:count(k) if k == 0 then return self.n end self.n = self.n + 1 return self:count(k - 1) end
print(obj:count(200000))
local function tail_vararg(n, ...) if n == 0 then return select("#", ...), ... end return tail_vararg(n - 1, ...) end
print(tail_vararg(100000, "x", "y"))
