-- metatables: __index as a function receives the table and the key
local calls = 0
local t = setmetatable({real = 1}, {__index = function(tbl, k)
  calls = calls + 1
  return type(k) == "string" and k:upper() or k * 2
end})
print(t.real, t.abc, t[21], calls)
local cache = setmetatable({}, {__index = function(self, n)
  local v = n * n
  rawset(self, n, v)
  return v
end})
print(cache[12], rawget(cache, 12), rawget(cache, 13))
local strict = setmetatable({}, {__index = function(_, k) error("undefined variable " .. k, 2) end})
print(pcall(function() return strict.nope end))
