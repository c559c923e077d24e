-- errors: __name in every type error, lua5.4's string arithmetic wording, __le falling back to not __lt
local T = setmetatable({}, {__name = "Thing"})
local function msg(f, ...) return select(2, pcall(f, ...)) end
print(msg(function() return T .. "x" end))
print(msg(function() return T.a.b end))
print(msg(function() return T() end))
print(msg(function() return T < T end))
print(msg(function() return T < 1 end))
print(msg(function() return #T < 1 end))
print(msg(function() return T & 1 end))
print(msg(function() return -T end))
print(msg(function() local t = setmetatable({}, {__name = {}}) return t + 1 end))
print(msg(function() return nil + "x" end))
print(msg(function() return {} - "1" end))
print(msg(function() return "1" ^ T end))
print(msg(function() return "x" // 1 end))
print(msg(function() return 5 % "0" end))
print(msg(function() return "7" // 0 end))
print(-"2", "3" * "4", "10" / "4", "7" % "3", "2" ^ "3", "9" // "2")
print(msg(function() return ~"0" end))
print(msg(function() return "1" << 1 end))
local A = setmetatable({}, {__add = function(a, b) return "added" end})
print("1" + A, A + "x", "x" + A)
local L = {}
L.__lt = function(a, b) return rawget(a, "v") < rawget(b, "v") end
local function v(x) return setmetatable({v = x}, L) end
print(v(1) <= v(2), v(2) <= v(1), v(1) >= v(2), v(2) >= v(2))
local Only = setmetatable({}, {__le = function() return "yes" end})
print(Only <= Only, Only >= Only, msg(function() return Only < Only end))
