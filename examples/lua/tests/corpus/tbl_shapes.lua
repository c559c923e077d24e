-- Tables with string keys share shapes (hidden classes): fields in different orders, nil fields,
-- fields added later, too many keys, other keys, metatables seeing nil-valued fields.
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  return table.concat(ks, ",")
end

-- the same fields in two orders; reads through one site see both
local a = { x = 1, y = 2 }
local b = { y = 20, x = 10 }
local sum = 0
for i = 1, 300 do
  local o = (i % 2 == 0) and a or b
  sum = sum + o.x * 3 + o.y
end
print("orders", sum)

-- a field made nil keeps no value: pairs skips it, rawget is nil, __index sees it missing
local P = {}
P.__index = function(t, k) return "default " .. k end
local p = setmetatable({ link = nil, id = 7, name = "p" }, P)
print("nil field", p.link, rawget(p, "link"), sorted_keys(p))
p.name = nil
print("cleared", p.name, sorted_keys(p))
p.name = "again"
print("set again", p.name, sorted_keys(p))

-- __newindex runs for a field whose value is nil, not for one that has a value
local log = {}
local W = { __newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end }
local w = setmetatable({ kept = 1, gone = nil }, W)
for i = 1, 5 do
  w.kept = i
  w.gone = nil
  w.fresh = nil
end
w.gone = "now"
print("newindex", w.kept, w.gone, table.concat(log, ","))

-- fields added in a loop, then cleared while iterating with next
local objs = {}
for i = 1, 200 do
  local o = {}
  o.id = i
  if i % 3 == 0 then o.extra = i * 2 end
  o.tag = "t" .. (i % 5)
  objs[i] = o
end
local total = 0
for i = 1, #objs do
  local o = objs[i]
  total = total + o.id + (o.extra or 0) + #o.tag
end
print("added", total, sorted_keys(objs[3]), sorted_keys(objs[4]))
local c = { a = 1, b = 2, c = 3, d = 4 }
for k in pairs(c) do c[k] = nil end
print("cleared all", next(c), sorted_keys(c))

-- many keys, then a non-string key: still one table
local big = {}
for i = 1, 300 do big["k" .. i] = i end
big[1.5] = "float"
big[true] = "bool"
local s = 0
for i = 1, 300 do s = s + big["k" .. i] end
local n = 0
for _ in pairs(big) do n = n + 1 end
print("big", s, n, big[1.5], big[true], big.k7, big.k300)

-- methods through a class chain, read at one site from objects of two shapes
local Base = {}
Base.__index = Base
function Base:describe() return self.name .. ":" .. self:kind() end
function Base:kind() return "base" end
local Derived = setmetatable({}, { __index = Base })
Derived.__index = Derived
function Derived:kind() return "derived" .. self.level end
local items = {}
for i = 1, 100 do
  if i % 2 == 0 then
    items[i] = setmetatable({ name = "b" .. i }, Base)
  else
    items[i] = setmetatable({ level = i, name = "d" .. i }, Derived)
  end
end
local len = 0
for i = 1, #items do len = len + #items[i]:describe() end
print("methods", len, items[1]:describe(), items[2]:describe())
Base.kind = function() return "changed" end
print("changed", items[2]:describe(), items[1]:describe())

-- globals are a shaped table too
shaped_global = 1
for i = 1, 100 do shaped_global = shaped_global + i end
print("global", shaped_global, rawget(_G, "shaped_global"))
