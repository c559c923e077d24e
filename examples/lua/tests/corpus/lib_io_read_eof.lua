-- library: reading from an empty standard input
print(io.read())
print(io.read("L"))
print(io.read("n"))
print(io.read(1))
print(io.read(0))
print(io.read("a") == "")
local n = 0
for l in io.lines() do n = n + 1 end
print(n)
