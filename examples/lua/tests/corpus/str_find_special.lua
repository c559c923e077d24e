-- strings: find/match with empty strings and init at the edges
print(("").find("", ""), ("abc"):find("", 1), ("abc"):find("", 3), ("abc"):find("", 4))
print(("abc"):find("", 5), ("abc"):find("", -1), ("abc"):find("", -10))
print(("abc"):match("", 4), ("abc"):match("", 5), ("abc"):match(".", -1))
print(("abc"):find("c", -1), ("abc"):find("a", -1), ("abc"):find("b", 0))
print(string.find("aaa", "a", 2, true), string.find("aaa", "a", 4, true))
