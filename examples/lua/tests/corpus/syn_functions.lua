-- syntax: the forms of function definitions
function globalf(a) return a + 1 end
print(globalf(1))
local a = {b = {c = {}}}
function a.b.c.f(x) return x * 2 end
function a.b.c:m(x) return self == a.b.c, x end
print(a.b.c.f(21), a.b.c:m("arg"))
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(10))
local anon = function(...) return select("#", ...) end
print(anon(1, nil, 3, nil))
local function noret() end
print(noret(), select("#", noret()))
print((function(x, y) return x .. y end)("p", "q"))
local function multi() return 1, 2 end
print(multi())
local obj = {}
obj.method = function(self, v) return v end
print(obj:method(7))
