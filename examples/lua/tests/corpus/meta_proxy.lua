-- metatables: a tracking proxy with __index/__newindex/__len/__pairs
local function track(t)
  local log = {}
  local proxy = setmetatable({}, {
    __index = function(_, k) log[#log + 1] = "get " .. tostring(k); return t[k] end,
    __newindex = function(_, k, v) log[#log + 1] = "set " .. tostring(k); t[k] = v end,
    __len = function() return #t end,
    __pairs = function() return next, t, nil end,
  })
  return proxy, log
end
local p, log = track({10, 20})
p[3] = p[1] + p[2]
print(#p, p[3], rawget(p, 3))
print(table.concat(log, ", "))
local s = 0
for k, v in pairs(p) do s = s + v end
print(s)
