-- library: io.read("n") reads numerals in several forms and fails cleanly
local vals = {}
while true do
  local n = io.read("n")
  if not n then break end
  vals[#vals + 1] = string.format("%s(%s)", tostring(n), math.type(n))
end
print(table.concat(vals, " "))
print(io.read("l"))
print(io.read("n"))
print(io.read("a"))
