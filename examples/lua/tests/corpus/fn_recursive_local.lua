-- functions: 'local function' can recurse, 'local f = function' cannot see itself
local function fact1(n) if n <= 1 then return 1 end return n * fact1(n - 1) end
print(fact1(6))
local fact2 = function(n) if n <= 1 then return 1 end return n * fact2(n - 1) end
print(pcall(fact2, 6))
local fact3
fact3 = function(n) if n <= 1 then return 1 end return n * fact3(n - 1) end
print(fact3(6))
