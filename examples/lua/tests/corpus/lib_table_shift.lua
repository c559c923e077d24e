-- table.insert/remove/move shifting items: in the array part (one block
-- move), past it, across its growth, in a hash part, with holes, and
-- overlapping moves both ways
local function show(t, n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = tostring(t[i]) end
  return table.concat(parts, " ")
end

local t = {}
for i = 1, 8 do t[i] = i * 10 end
table.insert(t, 1, 5)          -- array part full: the top item grows it
table.insert(t, 5, 45)
table.insert(t, #t + 1, 99)
table.insert(t, #t, 98)
print(#t, show(t, #t))
print(table.remove(t, 1), table.remove(t, 4), table.remove(t), #t)
print(show(t, #t))
print(table.remove(t, #t + 1), #t)

-- a list built in the hash part (keys set from the top down)
local h = {}
for i = 6, 1, -1 do h[i] = "h" .. i end
table.insert(h, 2, "x")
print(#h, show(h, #h))
print(table.remove(h, 2), table.remove(h, 1), #h, show(h, #h))

-- tables and strings as items (references moved by the block move)
local objs = {}
for i = 1, 20 do objs[i] = { id = i } end
for i = 1, 10 do table.insert(objs, 1, "s" .. i) end
local ids = 0
for i = 1, #objs do
  local v = objs[i]
  if type(v) == "table" then ids = ids + v.id * i end
end
print(#objs, objs[1], objs[10], objs[11].id, ids)
while #objs > 3 do table.remove(objs, 2) end
print(#objs, objs[1], objs[2].id, objs[3].id)

-- empty and one-item tables
local e = {}
print(table.remove(e), #e, table.remove(e, 1), table.remove(e, 0))
table.insert(e, 1, "only")
print(table.remove(e, 1), #e)

-- table.move: overlapping up and down, into another table, past the end
local m = { 1, 2, 3, 4, 5, 6, 7, 8 }
table.move(m, 1, 5, 3)
print(show(m, 8))
table.move(m, 3, 8, 1)
print(show(m, 8))
local other = table.move(m, 2, 4, 7, { "a", "b" })
print(show(other, 9))
table.move(m, 6, 8, 9)
print(#m, show(m, 11))

-- errors keep lua5.4's messages
print(pcall(table.insert, { 1, 2 }, 5, 0))
print(pcall(table.insert, { 1, 2 }, 0, 0))
print(pcall(table.remove, { 1, 2 }, 7))

-- a hot loop of front inserts and removes (the JIT runs the builtins)
local q = {}
local sum = 0
for i = 1, 3000 do
  table.insert(q, 1, i)
  if #q > 50 then sum = sum + table.remove(q, 1) - table.remove(q) end
end
print(#q, sum, q[1], q[#q])
