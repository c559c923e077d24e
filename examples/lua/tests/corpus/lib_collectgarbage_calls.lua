-- library: collectgarbage can be called; results are not printed (implementation specific)
local t = {}
for i = 1, 1000 do t[i] = {i} end
t = nil
collectgarbage()
collectgarbage("collect")
local kb = collectgarbage("count")
if kb then print("count called") end
print("after gc")
