-- library: io.stdout:write chaining, io.write returns io.stdout
io.stdout:write("one ", "two ", 3, "\n")
io.stdout:write("a"):write("b"):write("\n")
print(io.write("") == io.stdout, type(io.stdout))
local w = io.stdout.write
w(io.stdout, "unbound method call\n")
print(select("#", io.stdout:write("")))
