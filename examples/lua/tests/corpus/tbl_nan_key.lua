-- tables: NaN is never a key
local t = {}
local nan = 0 / 0
print(t[nan])
print(pcall(function() t[nan] = 1 end))
print(pcall(rawset, t, nan, 1))
print(pcall(function() return {[0/0] = 1} end))
t[math.huge] = "inf ok"
t[-math.huge] = "-inf ok"
print(t[1/0], t[-1/0])
