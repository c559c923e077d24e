-- functions: upvalues outlive the function that created them
local function make()
  local t = {}
  local count = 0
  local function add(v) count = count + 1; t[count] = v end
  local function dump() return count, table.concat(t, ",") end
  return add, dump
end
local add, dump = make()
add("x"); add("y"); add("z")
print(dump())
local function level1()
  local a = "A"
  return function()
    local b = "B"
    return function()
      local c = "C"
      return function() return a .. b .. c end
    end
  end
end
print(level1()()()())
local gen = {}
for i = 1, 3 do
  local captured = i * 100
  gen[i] = function(delta) captured = captured + delta; return captured end
end
print(gen[1](1), gen[1](1), gen[2](5), gen[3](0))
