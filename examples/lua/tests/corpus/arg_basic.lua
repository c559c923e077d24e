-- arg: the arg table holds the script name and the arguments
print(arg[0], #arg)
for i = 1, #arg do print(i, "[" .. arg[i] .. "]") end
print(type(arg[-1]), arg[#arg + 1])
