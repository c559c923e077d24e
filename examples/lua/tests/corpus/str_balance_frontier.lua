-- strings: %b balanced matches and %f frontier patterns
print(("f(a(b)c)d"):match("%b()"), ("x{a{b}}y"):match("%b{}"), ("no parens"):match("%b()"))
print(("((unbalanced)"):match("%b()"), ("[1][2]"):gsub("%b[]", "X"))
print(("if x then y end"):match("%bie"))
print(("THE (quick) fox"):find("%f[%a]%a+"), ("THE (quick) fox"):find("%f[%a]%a+", 5))
local words = {}
for w in ("the cat sat, on the mat"):gmatch("%f[%w]%w+") do words[#words + 1] = w end
print(table.concat(words, "|"))
print(("hello world"):gsub("%f[%w]%w", string.upper))
print(("THIS is MIXED case"):gsub("%f[%a]%u+%f[%A]", "<%0>"))
print(("aaa"):find("%f[a]"), ("aaa"):find("%f[%z]"), ("a b"):find("%f[^%s]", 2))
