-- strings: string.rep with and without separator
print(("ab"):rep(3), ("ab"):rep(3, ","), ("x"):rep(1, "SEP"))
print("[" .. ("ab"):rep(0) .. "]", "[" .. ("ab"):rep(-1) .. "]", "[" .. (""):rep(5) .. "]")
print(#("abc"):rep(1000), #string.rep("a", 10, "--"))
print(string.rep(5, 3), string.rep("-", 20))
print(("\0"):rep(3) == "\0\0\0", ("a"):rep(2, "\0"):byte(1, -1))
