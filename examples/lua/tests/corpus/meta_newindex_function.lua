-- metatables: __newindex as a function: logging, validation, read-only tables
local log = {}
local t = setmetatable({}, {__newindex = function(tbl, k, v)
  log[#log + 1] = tostring(k) .. "=" .. tostring(v)
  rawset(tbl, k, v)
end})
t.a = 1
t.b = 2
t.a = 3
print(table.concat(log, " "), t.a)
local function readonly(src)
  return setmetatable({}, {__index = src, __newindex = function(_, k) error("attempt to modify read-only field " .. tostring(k), 2) end})
end
local ro = readonly({x = 1})
print(ro.x, pcall(function() ro.x = 2 end))
local typed = setmetatable({}, {__newindex = function(tbl, k, v)
  if type(v) ~= "number" then error("numbers only", 2) end
  rawset(tbl, k, v)
end})
typed.n = 5
print(typed.n, pcall(function() typed.s = "str" end))
