-- arg: the main chunk receives the arguments as ...
print(select("#", ...))
print(...)
local a, b = ...
print(a, b)
local t = {...}
print(#t, t[#t])
print(table.concat({...}, "+"))
