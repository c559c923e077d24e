-- metatables: __concat with tables on either side
local mt = {}
mt.__concat = function(a, b)
  local function s(x) return type(x) == "table" and "[" .. x.name .. "]" or tostring(x) end
  return s(a) .. s(b)
end
local t = setmetatable({name = "T"}, mt)
print(t .. "str", "str" .. t, 1 .. t, t .. 2.5, t .. t)
print("a" .. "b" .. t .. "c")
local n = 0
local counting = setmetatable({}, {__concat = function(a, b) n = n + 1 return "X" end})
local r = "1" .. "2" .. counting .. "3" .. "4"
print(r, n)
print(pcall(function() return {} .. "x" end))
print(pcall(function() return "x" .. true end))
