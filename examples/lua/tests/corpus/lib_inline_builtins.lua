-- Builtins the interpreter and traces run inline (math.sqrt, math.floor, string.byte, string.sub,
-- setmetatable) on their common arguments, and every other case through the builtin itself.
local s = "hello, world"
local acc = {}
for i = -14, 14 do
  local b = string.byte(s, i)
  acc[#acc + 1] = tostring(b)
  acc[#acc + 1] = string.sub(s, i)
  acc[#acc + 1] = string.sub(s, i, i + 3)
  acc[#acc + 1] = string.sub(s, 3, i)
end
print(table.concat(acc, "|"))
print(string.byte(s), string.byte(""), string.byte(s, 1, 3), string.byte(s, 2.0), string.byte(123, 1))
print(string.sub(s, 2.0, 4), string.sub(12345, 2), string.sub("", 1, 1), string.sub(s, math.mininteger, math.maxinteger))
print(pcall(string.sub, s), pcall(string.byte, s, "x"), pcall(string.sub, s, 1.5))

local sum = 0.0
for i = 0, 40 do
  sum = sum + math.sqrt(i) + math.sqrt(i + 0.25)
end
print(string.format("%.6f", sum), math.sqrt(-1) ~= math.sqrt(-1), math.sqrt(2^60), math.sqrt("16"))
print(pcall(math.sqrt), pcall(math.sqrt, {}))

local fl = {}
for _, x in ipairs({ 3.7, -3.7, 0.5, -0.5, 2^53, -2^53, 2^53 + 2, 2^63, -2^63, 1e300, 7, -7, 0 }) do
  local f = math.floor(x)
  fl[#fl + 1] = tostring(f) .. ":" .. math.type(f)
end
print(table.concat(fl, " "))
print(math.floor(-0.0), math.floor(1/0), math.floor(-1/0), math.floor(0/0) ~= math.floor(0/0), math.floor("2.5"))
print(pcall(math.floor), pcall(math.floor, "x"))

local Class = { __index = { get = function(self) return self.v end } }
local objs = {}
for i = 1, 50 do objs[i] = setmetatable({ v = i }, Class) end
local total = 0
for i = 1, #objs do total = total + objs[i]:get() end
print(total, getmetatable(objs[1]) == Class, setmetatable(objs[2], nil) == objs[2], getmetatable(objs[2]))
local locked = setmetatable({}, { __metatable = "locked" })
print(pcall(setmetatable, locked, {}))
print(pcall(setmetatable, {}, 5), pcall(setmetatable, 5, {}), pcall(setmetatable, {}))
print(pcall(math.sqrt, 9), select("#", string.byte(s, 20)), select("#", string.byte(s, -1)))

-- table.insert/remove at the end: array part, hash part, holes, empty tables, t[0]
local q = {}
for i = 1, 40 do table.insert(q, i * i) end
local removed = 0
for _ = 1, 15 do removed = removed + table.remove(q) end
print(#q, removed, q[25], q[26])
local h = { [1] = "a", [2] = "b", [3] = "c" }
table.insert(h, "d")
print(#h, h[4], table.remove(h), #h, table.remove(h), #h)
local e = {}
print(table.remove(e), #e, select("#", table.remove(e)))
local z = { [0] = "zero" }
print(table.remove(z), z[0])
local big = {}
for i = 1, 100 do big[i] = i end
for i = 101, 140 do table.insert(big, i) end
local back = 0
while #big > 0 do back = back + table.remove(big) end
print(back, #big, pcall(table.insert, 5, 1), pcall(table.remove, "x"))
