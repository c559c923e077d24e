-- app: a small class system with inheritance, super calls, properties and tostring

local function class(parent)
  local c = {}
  c.__index = c
  c.super = parent
  if parent then
    setmetatable(c, {__index = parent})
    -- inherit metamethods that are looked up raw on the metatable
    for _, mm in ipairs({"__tostring", "__eq", "__lt", "__le", "__add", "__len", "__concat"}) do
      if rawget(c, mm) == nil and parent[mm] then c[mm] = parent[mm] end
    end
  end
  c.new = function(...)
    local obj = setmetatable({}, c)
    if obj.init then obj:init(...) end
    return obj
  end
  c.is_a = function(self, k)
    local m = getmetatable(self)
    while m do
      if m == k then return true end
      m = m.super
    end
    return false
  end
  return c
end

-- Shapes ---------------------------------------------------------------
local Shape = class()
function Shape:init(name) self.name = name end
function Shape:area() return 0 end
function Shape:perimeter() return 0 end
function Shape:describe()
  return string.format("%s: area=%.2f perimeter=%.2f", self.name, self:area(), self:perimeter())
end
Shape.__tostring = function(s) return "Shape<" .. s.name .. ">" end
Shape.__lt = function(a, b) return a:area() < b:area() end
Shape.__le = function(a, b) return a:area() <= b:area() end
Shape.__eq = function(a, b) return a:area() == b:area() end

local Rect = class(Shape)
function Rect:init(w, h) Shape.init(self, "rect"); self.w, self.h = w, h end
function Rect:area() return self.w * self.h end
function Rect:perimeter() return 2 * (self.w + self.h) end

local Square = class(Rect)
function Square:init(s) Rect.init(self, s, s); self.name = "square" end

local Circle = class(Shape)
function Circle:init(r) Shape.init(self, "circle"); self.r = r end
function Circle:area() return math.pi * self.r ^ 2 end
function Circle:perimeter() return 2 * math.pi * self.r end

local Triangle = class(Shape)
function Triangle:init(a, b, c) Shape.init(self, "triangle"); self.a, self.b, self.c = a, b, c end
function Triangle:perimeter() return self.a + self.b + self.c end
function Triangle:area()
  local s = self:perimeter() / 2
  return math.sqrt(s * (s - self.a) * (s - self.b) * (s - self.c))
end

local shapes = {Rect.new(3, 4), Square.new(3), Circle.new(1), Triangle.new(3, 4, 5), Square.new(2), Circle.new(2)}
for _, s in ipairs(shapes) do print(s:describe()) end
table.sort(shapes)
local order = {}
for _, s in ipairs(shapes) do order[#order + 1] = tostring(s) end
print(table.concat(order, " < "))
print(Square.new(3):is_a(Rect), Square.new(3):is_a(Shape), Circle.new(1):is_a(Rect))
print(Rect.new(2, 3) == Rect.new(3, 2), Rect.new(2, 3) == Square.new(2), Rect.new(1, 4) <= Square.new(2))

-- Bank accounts ----------------------------------------------------------
local Account = class()
Account.count = 0
function Account:init(owner, balance)
  self.owner = owner
  self.balance = balance or 0
  self.history = {}
  Account.count = Account.count + 1
  self.id = Account.count
end
function Account:deposit(v)
  if v <= 0 then error("deposit must be positive", 2) end
  self.balance = self.balance + v
  self.history[#self.history + 1] = "+" .. v
  return self
end
function Account:withdraw(v)
  if v > self.balance then error(string.format("insufficient funds in account %d", self.id), 2) end
  self.balance = self.balance - v
  self.history[#self.history + 1] = "-" .. v
  return self
end
Account.__tostring = function(a)
  return string.format("#%d %s: %d [%s]", a.id, a.owner, a.balance, table.concat(a.history, " "))
end

local Savings = class(Account)
function Savings:init(owner, balance, rate)
  Account.init(self, owner, balance)
  self.rate = rate
end
function Savings:add_interest()
  local interest = self.balance * self.rate // 100
  return self:deposit(interest)
end
function Savings:withdraw(v)
  if #self.history >= 3 then error("too many transactions", 2) end
  return Account.withdraw(self, v)
end

local a = Account.new("ann", 100)
a:deposit(50):withdraw(30)
print(a)
local s = Savings.new("bob", 1000, 5)
s:add_interest():withdraw(100)
print(s)
print(pcall(a.withdraw, a, 1000))
print(pcall(a.deposit, a, -5))
s:deposit(1)
print(pcall(s.withdraw, s, 1))
print(Account.count, s:is_a(Account), a:is_a(Savings))

-- Property-style access with __index/__newindex on a class ------------------
local Temperature = {}
Temperature.__index = function(t, k)
  if k == "fahrenheit" then return rawget(t, "celsius") * 9 / 5 + 32 end
  return Temperature[k]
end
Temperature.__newindex = function(t, k, v)
  if k == "fahrenheit" then rawset(t, "celsius", (v - 32) * 5 / 9)
  else rawset(t, k, v) end
end
function Temperature.new(c) return setmetatable({celsius = c}, Temperature) end
local temp = Temperature.new(100)
print(temp.celsius, temp.fahrenheit)
temp.fahrenheit = 32
print(temp.celsius, temp.fahrenheit)
