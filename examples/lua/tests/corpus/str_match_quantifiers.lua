-- strings: quantifiers * + - ? (greedy and lazy)
local s = "<a><b><c>"
print(s:match("<.*>"), s:match("<.->"), s:match("<(.-)>"))
print(("aaa"):match("a*"), ("aaa"):match("a-"), ("aaa"):match("a-$"), ("baaa"):match("a+"))
print(("color"):match("colou?r"), ("colour"):match("colou?r"), ("colouur"):match("colou?r"))
print(("   "):match("^%s*$") ~= nil, ("x"):match("^%s*$"))
print(("abc123def"):match("%a*"), ("abc123def"):match("%d+"), ("abc"):match("%d*"))
print(("[[nested]]"):match("%[(.-)%]"), ("key=val=x"):match("(.-)=(.*)"))
print(("-12.5e3"):match("^[+-]?%d+%.?%d*[eE]?[+-]?%d*$"))
