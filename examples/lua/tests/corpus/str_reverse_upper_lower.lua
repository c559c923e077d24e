-- strings: reverse, upper, lower (ASCII only in the C locale)
print(("hello"):reverse(), (""):reverse(), ("a"):reverse(), ("ab\0c"):reverse():byte(1, -1))
print(("Hello World 123!"):upper(), ("Hello World 123!"):lower())
print(("\200\233"):upper():byte(1, -1))
print(string.upper("mIxEd"), string.lower("MiXeD"), string.reverse(12))
local function is_palindrome(w) w = w:lower():gsub("[^%a]", "") return w == w:reverse() end
print(is_palindrome("A man, a plan, a canal: Panama"), is_palindrome("Lua"))
