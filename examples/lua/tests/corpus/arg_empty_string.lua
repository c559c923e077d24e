-- arg: an empty string argument is preserved
print(#arg, select("#", ...))
for i = 1, #arg do print(i, "[" .. arg[i] .. "]", #arg[i]) end
