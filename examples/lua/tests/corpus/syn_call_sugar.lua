-- syntax: calls with string literal and table constructor arguments
local function show(x)
  if type(x) == "table" then
    local keys = {}
    for k in pairs(x) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    return "table{" .. table.concat(keys, ",") .. "}"
  end
  return type(x) .. ":" .. tostring(x)
end
print(show"plain")
print(show'single')
print(show[[long]])
print(show{1, 2, x = 3})
print(show{})
local function curry(a) return function(b) return function(c) return a .. b .. c end end end
print(curry"a""b""c")
print(curry "x" [[y]] 'z')
local obj = {name = "o"}
function obj:greet(t) return self.name .. ":" .. t[1] end
print(obj:greet{"hey"})
print(type{}, #{1, 2, 3})
print(("fmt %s"):format"arg")
