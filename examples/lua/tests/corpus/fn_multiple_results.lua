-- functions: adjustment of multiple results
local function mr() return 1, 2, 3 end
local function none() end
print(mr())
print(mr(), "x")
print("x", mr())
print(mr(), mr())
local a, b, c, d = mr()
print(a, b, c, d)
local x, y = mr(), 10
print(x, y)
print(#{mr()}, #{mr(), mr()}, select("#", none()), select("#", none(), nil))
print(math.max(mr()), string.format("%d %d %d", mr()))
local t = {}
t.a, t.b = none()
print(t.a, t.b)
print((mr()))
print(mr() + 10)
local s = mr() .. "!"
print(s)
