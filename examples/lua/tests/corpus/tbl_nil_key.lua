-- tables: nil is never a key (reading is fine, writing errors)
local t = {}
print(t[nil])
print(pcall(function() t[nil] = 1 end))
print(pcall(rawset, t, nil, 1))
print(pcall(function() return {[nil] = 1} end))
t.x = nil
print(next(t))
local k
print(pcall(function() t[k] = "v" end))
