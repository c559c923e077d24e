-- strings: string.find with init and plain search
local s = "hello world, hello lua"
print(s:find("hello"), s:find("hello", 2), s:find("xyz"))
print(s:find("o", 5), s:find("o", 6), s:find("o", -3))
print(s:find("l", -100), s:find("lua", 100), s:find("", 100))
print(("a.b.c"):find(".", 1, true), ("a.b.c"):find("%."), ("a+b"):find("+", 1, true))
print(("(x)"):find("(", 1, true), ("a[b]"):find("[b]", 1, true))
print(("abc"):find(""), ("abc"):find("", 3), ("abc"):find("", 4), ("abc"):find("", 5))
print(("aaa"):find("aa", 2), ("a\0b"):find("\0", 1, true), ("a\0b"):find("b"))
print(string.find("abc", "b", nil, nil))
