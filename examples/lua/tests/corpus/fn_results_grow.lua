-- functions: results and arguments past a frame's registers, also in loops
local function range(n) local t = {} for i = 1, n do t[i] = i end return table.unpack(t) end
local function lua_range(n) if n == 0 then return end return n, lua_range(n - 1) end
print(select("#", lua_range(300)))
local function id(...) return ... end
print(select("#", id(range(1000))))
print(select(-1, id(range(1000))))
local t = {id(range(300))}
print(#t, t[1], t[300])
local function count(...) return select("#", ...) end
print(count(range(400)))
print(string.format("%d %d", select(299, range(300))))
print(pcall(count, range(250)))
print(pcall(select, "#", range(260)))
local packed = table.pack(range(700))
print(packed.n, packed[700])
local mt = {__add = function() return range(300) end}
print(setmetatable({}, mt) + 1)
local total = 0
for i = 1, 50 do total = total + count(range(i * 10)) end
print(total)
local function varargs_loop(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...)) end
  return s
end
print(varargs_loop(range(300)))
local parts = {}
for i = 1, 200 do parts[i] = "x" end
io.write(table.unpack(parts))
io.write("\n")
print(select("#", table.unpack({}, 1, 5000)))
print(pcall(table.unpack, {}, 1, 1e7))
