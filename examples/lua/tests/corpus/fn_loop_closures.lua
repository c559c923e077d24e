-- functions: each loop iteration gets a fresh local for closures to capture
local fs = {}
for i = 1, 3 do fs[i] = function() return i end end
print(fs[1](), fs[2](), fs[3]())
local gs = {}
for _, v in ipairs({"a", "b", "c"}) do gs[#gs + 1] = function() return v end end
print(gs[1](), gs[2](), gs[3]())
local hs = {}
local j = 1
while j <= 3 do
  local k = j
  hs[j] = function() k = k + 10; return k end
  j = j + 1
end
print(hs[1](), hs[1](), hs[2](), hs[3]())
local rs = {}
local n = 0
repeat
  n = n + 1
  local m = n * n
  rs[n] = function() return m end
until n == 3
print(rs[1](), rs[2](), rs[3]())
local shared = {}
local c = 0
for i = 1, 3 do c = c + 1; shared[i] = function() return c end end
print(shared[1](), shared[3]())
