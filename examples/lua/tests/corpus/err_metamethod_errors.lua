-- errors: errors raised inside metamethods propagate to the caller
local t = setmetatable({}, {
  __index = function(_, k) error("no field " .. k) end,
  __add = function() error("cannot add", 2) end,
  __call = function() error({why = "call"}) end,
  __tostring = function() error("tostring failed", 0) end,
})
print(pcall(function() return t.foo end))
print(pcall(function() return t + 1 end))
local ok, e = pcall(t)
print(ok, e.why)
print(pcall(tostring, t))
print(pcall(function() return #setmetatable({}, {__len = function() error("len!", 0) end}) end))
