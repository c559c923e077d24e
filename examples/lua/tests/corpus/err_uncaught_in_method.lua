-- errors: error with level 2 in a method blames the caller's line
local Stack = {}
Stack.__index = Stack
function Stack.new() return setmetatable({n = 0}, Stack) end
function Stack:pop()
  if self.n == 0 then error("pop from empty stack", 2) end
  self.n = self.n - 1
end
local s = Stack.new()
s:pop()
