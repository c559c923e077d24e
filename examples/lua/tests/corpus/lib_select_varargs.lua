-- library: select and table.pack/unpack with varargs
local function f(...)
  return select("#", ...), select("#", table.unpack(table.pack(...))), table.pack(...).n
end
print(f(1, nil, 3))
print(f())
print(select(2, table.unpack({1, 2, 3})))
