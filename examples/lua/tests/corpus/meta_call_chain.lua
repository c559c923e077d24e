-- metatables: __call on a callable that returns callables; __index with __call
local builder = setmetatable({parts = {}}, {__call = function(self, part)
  self.parts[#self.parts + 1] = part
  return self
end})
builder("a")("b")("c")
print(table.concat(builder.parts))
local F = setmetatable({}, {__call = function(_, x) return x * 2 end})
local methods = setmetatable({}, {__index = function() return F end})
print(methods.anything(21))
print(pcall(function() local nc = setmetatable({}, {__call = 5}) return nc() end))
