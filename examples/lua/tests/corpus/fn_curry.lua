-- functions: currying and partial application
local function curry2(f) return function(a) return function(b) return f(a, b) end end end
local add = curry2(function(a, b) return a + b end)
print(add(3)(4))
local add10 = add(10)
print(add10(1), add10(-10))
local function partial(f, ...)
  local bound = table.pack(...)
  return function(...)
    local args = {table.unpack(bound, 1, bound.n)}
    local more = table.pack(...)
    for i = 1, more.n do args[bound.n + i] = more[i] end
    return f(table.unpack(args, 1, bound.n + more.n))
  end
end
local fmt = partial(string.format, "%s-%s-%s")
print(fmt("a", "b", "c"))
local fmt2 = partial(string.format, "%s|%s|%s", "x")
print(fmt2("y", "z"))
