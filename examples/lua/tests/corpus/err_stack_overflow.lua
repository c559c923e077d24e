-- errors: unbounded recursion raises a catchable "stack overflow"
local function rec(n) return 1 + rec(n + 1) end
local ok, msg = pcall(rec, 1)
print(ok, string.find(msg, "stack overflow") ~= nil)
local function rec2() local t = {}; t[1] = rec2(); return t end
ok, msg = pcall(rec2)
print(ok, string.find(msg, "stack overflow") ~= nil)
local mt = {}
mt.__index = function(t, k) return t[k .. "x"] end
local obj = setmetatable({}, mt)
ok, msg = pcall(function() return obj.a end)
print(ok, type(msg) == "string")
print("still running")
