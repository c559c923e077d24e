-- library: os.getenv, os.clock, os.time (only their types and presence)
print(os.getenv("HOME") ~= nil, os.getenv("SURELY_NOT_A_SET_VARIABLE_12345"))
print(type(os.clock()), type(os.time()), math.type(os.time()))
local t0 = os.clock()
local s = 0
for i = 1, 100000 do s = s + i end
print(s, os.clock() >= t0)
print(pcall(os.getenv))
