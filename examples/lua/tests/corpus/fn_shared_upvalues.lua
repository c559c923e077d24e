-- functions: closures created in the same scope share upvalues
local function pair()
  local v = 0
  local function get() return v end
  local function set(x) v = x end
  return get, set
end
local get1, set1 = pair()
local get2, set2 = pair()
set1(10)
print(get1(), get2())
set2(20)
print(get1(), get2())
local x = 1
local function incx() x = x + 1 end
incx(); incx()
print(x)
local fns = {}
do
  local shared = 0
  for i = 1, 3 do fns[i] = function() shared = shared + i; return shared end end
end
print(fns[1](), fns[2](), fns[3](), fns[1]())
local function outer()
  local a = 1
  local function mid()
    local function inner() a = a * 2; return a end
    return inner
  end
  return mid(), function() return a end
end
local dbl, read = outer()
dbl(); dbl()
print(read())
