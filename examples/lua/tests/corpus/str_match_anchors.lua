-- strings: anchors ^ and $ (and '^' inside gmatch is an ordinary character)
print(("hello"):match("^h"), ("hello"):match("^e"), ("hello"):match("o$"), ("hello"):match("l$"))
print(("hello"):match("^hello$"), ("hello!"):match("^hello$"), ("a$"):match("a%$"))
print(("abc"):find("^b", 2), ("abc"):match("^b", 2), ("abc"):match("^c", -1))
print(("x^y"):match("x^y"), ("a$b"):match("a$b"))
local out = {}
for w in ("^a^b c"):gmatch("^%a") do out[#out + 1] = w end
print(#out, table.concat(out, ","))
print(("aaa"):gsub("^a", "X"), ("aaa"):gsub("a$", "X"))
