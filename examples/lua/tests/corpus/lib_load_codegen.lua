-- library: generating code with load
local ops = {add = "+", sub = "-", mul = "*"}
local names = {"add", "mul", "sub"}
local fns = {}
for _, name in ipairs(names) do
  fns[name] = load("return function(a, b) return a " .. ops[name] .. " b end")()
end
print(fns.add(2, 3), fns.sub(10, 4), fns.mul(6, 7))
local function make_poly(coeffs)
  local terms = {}
  for i, c in ipairs(coeffs) do terms[#terms + 1] = string.format("%d * x ^ %d", c, i - 1) end
  return load("return function(x) return " .. table.concat(terms, " + ") .. " end")()
end
local p = make_poly({1, 2, 3})
print(p(0), p(1), p(2))
local src = {}
for i = 1, 10 do src[#src + 1] = "local v" .. i .. " = " .. i end
src[#src + 1] = "return v1 + v10"
print(load(table.concat(src, "\n"))())
