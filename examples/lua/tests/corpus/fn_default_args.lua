-- functions: missing arguments are nil; extra arguments are dropped
local function f(a, b, c) return a, b, c end
print(f(1))
print(f(1, 2, 3, 4, 5))
local function greet(name, greeting)
  greeting = greeting or "Hello"
  name = name or "world"
  return greeting .. ", " .. name .. "!"
end
print(greet(), greet("Lua"), greet("you", "Hi"))
local function opts(o)
  o = o or {}
  return (o.width or 80) .. "x" .. (o.height or 24)
end
print(opts(), opts{width = 100}, opts{height = 50, width = 10})
local function flag(b) if b == nil then b = true end return b end
print(flag(), flag(false), flag(true))
