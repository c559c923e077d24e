-- arg: without arguments arg has only non-positive indices
print(arg[0], #arg, arg[1], select("#", ...))
print(type(arg[-1]))
