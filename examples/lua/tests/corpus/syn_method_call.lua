-- syntax: method call sugar and chaining
local obj = {n = 0}
function obj:inc(by) self.n = self.n + (by or 1); return self end
function obj.get(self) return self.n end
obj:inc():inc(5):inc()
print(obj:get(), obj.get(obj))
print(("x"):rep(3), ("%d-%d"):format(1, 2))
local s = "Hello"
print(s:upper(), s:lower():len(), s:sub(2, 3):upper())
local chain = {}
function chain.new(v) return setmetatable({v = v}, {__index = chain}) end
function chain:add(x) return chain.new(self.v + x) end
function chain:value() return self.v end
print(chain.new(1):add(2):add(3):value())
local t = {inner = {name = "deep"}}
function t.inner:hello(greet) return greet .. ", " .. self.name end
print(t.inner:hello("hi"))
print(("abc"):byte(-1), #("abc"):rep(4, ","))
