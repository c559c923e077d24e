-- strings: character sets
print(("hello"):match("[aeiou]"), ("hello"):match("[^aeiou]+"), ("Hello"):match("[A-Z][a-z]*"))
print(("a-b"):match("[a-]+"), ("a]b"):match("[]]"), ("a]b"):match("[^]]+"))
print(("x_y9"):match("[%a_]+"), ("1+2"):match("[%d%+]+"), ("a^b"):match("[b^]+"))
print(("abc-xyz"):match("[a-c%-]+"), ("%d"):match("[%%]"), ("tab\t"):match("[\t]") == "\t")
print(select(2, ("The Quick Brown"):gsub("[A-Z]", "")))
print(("2024"):match("^[0-9][0-9][0-9][0-9]$"), ("20x4"):match("^[0-9]+$"))
print(("a.b"):match("[.]"), ("aXb"):match("[.]"))
