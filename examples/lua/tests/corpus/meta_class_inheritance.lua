-- metatables: classes and inheritance the way Lua users write them
local Animal = {}
Animal.__index = Animal
function Animal.new(name, sound)
  local self = setmetatable({}, Animal)
  self.name = name
  self.sound = sound or "..."
  return self
end
function Animal:speak() return self.name .. " says " .. self.sound end
function Animal:kind() return "animal" end

local Dog = setmetatable({}, {__index = Animal})
Dog.__index = Dog
function Dog.new(name)
  local self = Animal.new(name, "woof")
  return setmetatable(self, Dog)
end
function Dog:kind() return "dog" end
function Dog:fetch() return self.name .. " fetches" end

local Puppy = setmetatable({}, {__index = Dog})
Puppy.__index = Puppy
function Puppy.new(name)
  local self = Dog.new(name)
  self.sound = "yip"
  return setmetatable(self, Puppy)
end
function Puppy:kind() return "puppy (a " .. Dog.kind(self) .. ")" end

local zoo = {Animal.new("Generic"), Dog.new("Rex"), Puppy.new("Bit")}
for _, a in ipairs(zoo) do print(a:speak(), a:kind()) end
print(zoo[3]:fetch(), zoo[2].fetch ~= nil, zoo[1].fetch)
print(getmetatable(zoo[3]) == Puppy, rawget(Puppy, "speak"))
local function isa(obj, class)
  local mt = getmetatable(obj)
  while mt do
    if mt == class then return true end
    local parent = getmetatable(mt)
    mt = parent and parent.__index
  end
  return false
end
print(isa(zoo[3], Animal), isa(zoo[3], Dog), isa(zoo[2], Puppy))
