-- tables: the array part grows into integer keys the hash part holds
-- (moved over), in a table of string keys only (nothing to move), and
-- in an emptied one
local function show(t, n)
  local out = {}
  for i = 1, n do out[#out + 1] = tostring(t[i]) end
  return table.concat(out, " ")
end

-- integer keys past the end first live in the hash part
local t = {}
t[3] = "c"; t[5] = "e"; t[4] = "d"; t[9] = "i"
t[1] = "a"; t[2] = "b"
for i = 6, 8 do t[i] = i end
print(#t, show(t, 10))
local n = 0
for k, v in pairs(t) do n = n + 1 end
print("pairs", n)

-- string keys, then a growing sequence
local s = {name = "s", size = 0}
for i = 1, 40 do s[i] = i * i; s.size = s.size + 1 end
print(#s, s[1], s[17], s[40], s.name, s.size)

-- mixed: string and integer keys, integers inserted out of order
local m = {x = 1}
for i = 20, 2, -2 do m[i] = -i end
for i = 1, 19, 2 do m[i] = i end
print(#m, show(m, 21), m.x)

-- removed and re-added
local r = {}
for i = 1, 16 do r[i] = i end
for i = 16, 1, -1 do r[i] = nil end
print(#r, r[1])
r[2] = "two"; r[1] = "one"
print(#r, show(r, 3))
