-- functions: generator-style iterators built from closures
local function fib_gen()
  local a, b = 0, 1
  return function() local r = a; a, b = b, a + b; return r end
end
local g = fib_gen()
local out = {}
for i = 1, 15 do out[i] = g() end
print(table.concat(out, " "))
local function chars(s)
  local i = 0
  return function() i = i + 1; if i <= #s then return i, s:sub(i, i) end end
end
for i, c in chars("lua") do io.write(i, c, " ") end print()
local function take(n, gen)
  return function() if n > 0 then n = n - 1; return gen() end end
end
local function naturals() local n = 0 return function() n = n + 1 return n end end
local sum = 0
for v in take(100, naturals()) do sum = sum + v end
print(sum)
