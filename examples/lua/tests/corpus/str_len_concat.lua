-- strings: length and concatenation of byte strings, embedded zeros
local s = "hello"
print(#s, s:len(), string.len(s), #"", ("a\0b"):len(), #"\0\0\0")
local z = "a\0b\0c"
print(#z, z:byte(2), z:byte(4), z == "a\0b\0c", z == "a\0b")
local joined = "x" .. "\0" .. "y"
print(#joined, joined:byte(1, -1))
print(#("ab" .. "cd" .. "ef"), ("ab" .. 12 .. 3.5))
local big = ""
for i = 1, 100 do big = big .. i end
print(#big, big:sub(1, 12), big:sub(-6))
print(string.len(12345), string.len(1.5))
