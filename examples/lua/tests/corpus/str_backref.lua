-- strings: back references %1..%9 inside patterns
print(("say 'hi' or \"bye\""):match("([\"'])(.-)%1"))
print(("abcabc"):match("(abc)%1"), ("abcabd"):match("(abc)%1"))
print(("aa bb cd ee"):gsub("(%a)%1", "<%1%1>"))
print(("x=1;x=2"):find("(%a)=%d;%1"))
print(("[==[long]==]"):match("%[(=*)%[(.-)%]%1%]"))
print(pcall(string.match, "a", "%1"))
