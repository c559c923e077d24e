-- errors: pcall as a value: stored, returned, passed to pcall, a __call handler
local p = pcall
print(p(function(a, b) return a + b end, 1, 2))
print(p(error, "stored"))
local t = {pc = pcall}
print(t.pc(function() return "from a table" end))
print(t.pc(t.pc, error, "method-like"))
local function get() return pcall end
print(get()(string.rep, "ab", 2))
print(pcall(p))
print(pcall(p, p))
print(p(function() local x; return x.y end))
print(select("#", pcall(pcall, pcall, function() return 1, 2 end)))
print(pcall(pcall, pcall, function() return 1, 2 end))
local a, b, c = pcall(pcall, error, "x")
print(a, b, c)
print((pcall(error)))
-- __call = pcall: t(f) is pcall(t, f), which calls t(f) again, until the
-- C stack overflows
local looping = setmetatable({}, {__call = pcall})
local r = table.pack(looping(print))
print(r.n, r[1], r[r.n - 1], r[r.n])
-- __call handlers raising, under pcall
local raiser = setmetatable({}, {__call = function(_, m) error(m, 0) end})
print(pcall(raiser, "raised"))
print(pcall(pcall, raiser, "inner"))
print(pcall(setmetatable({}, {__call = 42})))
-- a builtin as __call gets the table first
local sel = setmetatable({}, {__call = select})
print(pcall(sel, 2, "a", "b"))
local counter = setmetatable({}, {__call = rawlen})
print(counter())
