-- app: closure-based iterators and lazy generator pipelines (no coroutines)

local Iter = {}
Iter.__index = Iter

local function wrap(gen) return setmetatable({gen = gen}, Iter) end

function Iter.range(a, b, step)
  step = step or 1
  local i = a - step
  return wrap(function()
    i = i + step
    if (step > 0 and i <= b) or (step < 0 and i >= b) then return i end
  end)
end

function Iter.from_table(t)
  local i = 0
  return wrap(function() i = i + 1; return t[i] end)
end

function Iter.chars(s)
  local i = 0
  return wrap(function() i = i + 1; if i <= #s then return s:sub(i, i) end end)
end

function Iter.naturals()
  local n = 0
  return wrap(function() n = n + 1; return n end)
end

function Iter:map(f)
  local gen = self.gen
  return wrap(function()
    local v = gen()
    if v ~= nil then return f(v) end
  end)
end

function Iter:filter(p)
  local gen = self.gen
  return wrap(function()
    while true do
      local v = gen()
      if v == nil then return nil end
      if p(v) then return v end
    end
  end)
end

function Iter:take(n)
  local gen = self.gen
  return wrap(function()
    if n <= 0 then return nil end
    n = n - 1
    return gen()
  end)
end

function Iter:skip(n)
  local gen = self.gen
  return wrap(function()
    while n > 0 do n = n - 1; gen() end
    return gen()
  end)
end

function Iter:take_while(p)
  local gen, done = self.gen, false
  return wrap(function()
    if done then return nil end
    local v = gen()
    if v == nil or not p(v) then done = true; return nil end
    return v
  end)
end

function Iter:zip(other)
  local g1, g2 = self.gen, other.gen
  return wrap(function()
    local a, b = g1(), g2()
    if a ~= nil and b ~= nil then return {a, b} end
  end)
end

function Iter:chain(other)
  local g1, g2, first = self.gen, other.gen, true
  return wrap(function()
    if first then
      local v = g1()
      if v ~= nil then return v end
      first = false
    end
    return g2()
  end)
end

function Iter:enumerate()
  local gen, i = self.gen, 0
  return wrap(function()
    local v = gen()
    if v ~= nil then i = i + 1; return {i, v} end
  end)
end

function Iter:reduce(f, acc)
  for v in self.gen do acc = f(acc, v) end
  return acc
end

function Iter:collect()
  local t = {}
  for v in self.gen do t[#t + 1] = v end
  return t
end

function Iter:each() return self.gen end

local function show(t) local s = {} for i, v in ipairs(t) do s[i] = tostring(v) end return table.concat(s, " ") end

print(show(Iter.range(1, 10):collect()))
print(show(Iter.range(10, 1, -3):collect()))
print(show(Iter.range(1, 20):filter(function(x) return x % 3 == 0 end):map(function(x) return x * x end):collect()))
print(Iter.range(1, 100):reduce(function(a, b) return a + b end, 0))
print(show(Iter.naturals():map(function(n) return n * n end):take_while(function(v) return v < 60 end):collect()))
print(show(Iter.naturals():skip(5):take(5):collect()))
print(show(Iter.chars("hello"):map(string.upper):collect()))
local pairs_out = {}
for p in Iter.chars("abc"):zip(Iter.naturals()):each() do pairs_out[#pairs_out + 1] = p[1] .. p[2] end
print(table.concat(pairs_out, ","))
print(show(Iter.range(1, 3):chain(Iter.from_table({"x", "y"})):collect()))
for e in Iter.from_table({"first", "second"}):enumerate():each() do print(e[1], e[2]) end

-- primes as an infinite lazy stream
local function primes()
  local found = {}
  return Iter.naturals():skip(1):filter(function(n)
    for _, p in ipairs(found) do
      if p * p > n then break end
      if n % p == 0 then return false end
    end
    found[#found + 1] = n
    return true
  end)
end
print(show(primes():take(20):collect()))

-- stateless iterator written with the generic-for protocol
local function evens(limit)
  return function(lim, cur)
    cur = cur + 2
    if cur <= lim then return cur end
  end, limit, 0
end
local ev = {}
for v in evens(12) do ev[#ev + 1] = v end
print(table.concat(ev, ","))

-- a tree walker returning a closure over an explicit stack
local tree = {v = 1, {v = 2, {v = 4}, {v = 5}}, {v = 3, {v = 6}}}
local function preorder(root)
  local stack = {root}
  return function()
    local node = table.remove(stack)
    if not node then return nil end
    for i = #node, 1, -1 do stack[#stack + 1] = node[i] end
    return node.v
  end
end
local order = {}
for v in preorder(tree) do order[#order + 1] = v end
print(table.concat(order, " "))

-- sliding windows over a sequence
local function windows(t, n)
  local i = 0
  return function()
    i = i + 1
    if i + n - 1 <= #t then return table.unpack(t, i, i + n - 1) end
  end
end
for a, b, c in windows({1, 2, 3, 4, 5}, 3) do io.write(a + b + c, " ") end
print()
