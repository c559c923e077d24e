-- tables: a queue with head/tail indices and a stack
local Queue = {}
Queue.__index = Queue
function Queue.new() return setmetatable({first = 1, last = 0, items = {}}, Queue) end
function Queue:push(v) self.last = self.last + 1; self.items[self.last] = v end
function Queue:pop()
  if self.first > self.last then return nil end
  local v = self.items[self.first]
  self.items[self.first] = nil
  self.first = self.first + 1
  return v
end
function Queue:size() return self.last - self.first + 1 end
local q = Queue.new()
for i = 1, 5 do q:push(i * i) end
print(q:pop(), q:pop(), q:size())
q:push(100)
local out = {}
while q:size() > 0 do out[#out + 1] = q:pop() end
print(table.concat(out, " "), q:pop())
local stack = {}
for c in ("([]{()})"):gmatch(".") do
  if c:match("[%(%[{]") then stack[#stack + 1] = c
  else
    local open = table.remove(stack)
    io.write(open, c, " ")
  end
end
print(#stack)
