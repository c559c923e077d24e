-- functions: varargs keep trailing nils
local function info(...)
  local t = table.pack(...)
  local parts = {}
  for i = 1, t.n do parts[i] = tostring(t[i]) end
  return t.n .. ":" .. table.concat(parts, ",")
end
print(info())
print(info(nil))
print(info(nil, nil))
print(info(1, nil))
print(info(nil, 2, nil))
local function f(...) return ... end
print(info(f(nil, nil, nil)))
print(select("#", f(nil, nil, nil)))
