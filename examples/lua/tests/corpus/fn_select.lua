-- functions: select for iterating over varargs
local function each(...)
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    out[#out + 1] = tostring(v)
  end
  return table.concat(out, " ")
end
print(each(1, "two", nil, false, 5.5))
local function last(...) local n = select("#", ...) if n == 0 then return nil end return (select(n, ...)) end
print(last(1, 2, 3), last())
local function drop2(...) return select(3, ...) end
print(drop2(1, 2, 3, 4))
print(select(-2, "a", "b", "c"))
