-- tables: assorted table idioms (set, count, invert, copy)
local function set(list) local s = {} for _, v in ipairs(list) do s[v] = true end return s end
local vowels = set({"a", "e", "i", "o", "u"})
local n = 0
for c in ("programming in lua"):gmatch("%a") do if vowels[c] then n = n + 1 end end
print(n)
local function invert(t) local r = {} for k, v in pairs(t) do r[v] = k end return r end
local inv = invert({"x", "y", "z"})
print(inv.x, inv.y, inv.z)
local function shallow_copy(t) local r = {} for k, v in pairs(t) do r[k] = v end return r end
local orig = {1, 2, 3, name = "o"}
local cp = shallow_copy(orig)
cp[1] = 100
print(orig[1], cp[1], cp.name, #cp)
local function keys_sorted(t) local ks = {} for k in pairs(t) do ks[#ks + 1] = k end table.sort(ks) return ks end
print(table.concat(keys_sorted({zeta = 1, alpha = 2, mid = 3}), ","))
local counts = {}
for _, w in ipairs({"a", "b", "a", "c", "b", "a"}) do counts[w] = (counts[w] or 0) + 1 end
print(counts.a, counts.b, counts.c)
