-- syntax: long bracket strings, levels, first newline skipped, no escapes inside
local a = [[hello]]
print(a, #a)
local b = [[
first newline is skipped]]
print(b)
local c = [==[contains ]] and ]=] inside]==]
print(c)
local d = [[line1
line2
  indented \n not an escape]]
print(d)
print(#[[
]])
local e = [=[
]=]
print(#e)
print([[a]] .. [=[b]=] .. [==[c]==])
local f = [[
two

blank]]
for line in f:gmatch("[^\n]*") do io.write("<", line, ">") end
print()
