-- library: io.lines() over standard input
local count, total = 0, 0
for line in io.lines() do
  count = count + 1
  total = total + #line
  print(count, line:upper())
end
print("lines:", count, "chars:", total)
