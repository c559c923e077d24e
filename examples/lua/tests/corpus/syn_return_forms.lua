-- syntax: return statement forms
local function a() return end
local function b() return; end
local function c() do return 1 end end
local function d(x) if x then return "yes" end return "no" end
local function e() return 1, 2, 3; end
print(select("#", a()), select("#", b()), c(), d(true), d(false), e())
local function early(n)
  for i = 1, 10 do
    if i == n then return i * 10 end
  end
  return -1
end
print(early(3), early(20))
local function nested()
  while true do
    do return "from loop" end
  end
end
print(nested())
