-- errors: error levels through methods, closures, pcall boundaries and library callbacks
local obj = {}
function obj:check(x) if not x then error("check failed", 2) end return x end
local function use() local r = obj:check(false) return r end
print(pcall(use))
local function level(n) return function() error("at " .. n, n) end end
for n = 0, 4 do print(n, pcall(level(n))) end
local function wrap(n) local f = level(n) return function() f() end end
for n = 1, 4 do print("wrapped", n, pcall(wrap(n))) end
print(pcall(error, "x", 3))
print(pcall(error, "far", 50))
print(pcall(error))
print(pcall(error, nil))
print(type(select(2, pcall(error, {code = 7}))))
print(select(2, pcall(error, {code = 7})).code)
print(pcall(error, 42))
print(pcall(error, 42, 2))
print(pcall(error, true))
local ok, e = pcall(table.sort, {3, 2, 1}, function(a, b) error("in comparator", 2) end)
print(ok, e)
ok, e = pcall(table.sort, {3, 2, 1}, function(a, b) error("cmp level 1") end)
print(ok, e)
local function outer()
  local ok2, e2 = pcall(function() error("inner", 2) end)
  return ok2, e2
end
print(outer())
print(pcall(string.gsub, "abc", "%w", function(c) error("gsub " .. c, 1) end))
print(pcall(string.gsub, "abc", "%w", function(c) error("gsub2 " .. c, 2) end))
