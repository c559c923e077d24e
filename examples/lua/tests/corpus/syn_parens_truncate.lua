-- syntax: parentheses truncate multiple values to one
local function mr() return 1, 2, 3 end
print(mr())
print((mr()))
local t = {(mr())}
print(#t)
local a, b = (mr())
print(a, b)
print(select("#", (mr())))
print(select("#", (nil)))
local function none() end
print((none()), select("#", (none())))
print(mr(), mr())
print(mr(), (mr()))
