-- strings: string.byte and string.char
local s = "ABCDE"
print(s:byte(), s:byte(2), s:byte(-1), s:byte(2, 4))
print(s:byte(10), select("#", s:byte(10)), select("#", s:byte(3, 2)))
print(s:byte(-3, -1))
print(string.char(72, 105), string.char() == "", #string.char(0, 0))
print(string.char(0x41, 0x42, 0x43):lower())
print(pcall(string.char, 256))
print(pcall(string.char, -1))
print(pcall(string.char, "x"))
local bytes = {}
for i = 1, #s do bytes[i] = s:byte(i) + 1 end
print(string.char(table.unpack(bytes)))
print(("\0\1\255"):byte(1, 3))
