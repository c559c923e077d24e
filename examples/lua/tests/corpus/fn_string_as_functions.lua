-- functions: library functions are first-class values
local ops = {upper = string.upper, rev = string.reverse, len = string.len}
local names = {"len", "rev", "upper"}
for _, n in ipairs(names) do print(n, ops[n]("Hello")) end
local dispatch = {
  ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end,
}
for _, op in ipairs({"+", "-", "*"}) do io.write(dispatch[op](7, 3), " ") end print()
print(type(print), type(string.format), type(function() end))
local p = print
p("via alias")
