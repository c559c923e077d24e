-- strings: string.sub with positive, negative, zero and out-of-range indices
local s = "hello world"
print(s:sub(1, 5), s:sub(7), s:sub(-5), s:sub(-5, -2), s:sub(0))
print("[" .. s:sub(5, 4) .. "]", "[" .. s:sub(100) .. "]", s:sub(-100, 3))
print(s:sub(3, -3), s:sub(0, 0) == "", s:sub(1, 0) == "", s:sub(-1, -1))
print(s:sub(2, 100), s:sub(math.mininteger, math.maxinteger))
print(string.sub("abc", 2), ("abc"):sub(-2, -1), ("abc"):sub(4, 4) == "")
print(s:sub(3.0, 4), pcall(string.sub, s, 1.5))
print(string.sub(12345, 2, 3))
