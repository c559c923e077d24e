-- metatables: __concat in a chain (right associative)
local mt = {}
local function S(s) return setmetatable({s = s}, mt) end
mt.__concat = function(a, b)
  local as = type(a) == "table" and a.s or a
  local bs = type(b) == "table" and b.s or b
  return S("(" .. as .. "+" .. bs .. ")")
end
print(("x" .. S("y") .. "z").s)
print((S("a") .. S("b") .. S("c")).s)
print((1 .. S("n") .. 2).s)
