-- strings: string.find with patterns returns start, end and captures
print(("key = value"):find("(%w+)%s*=%s*(%w+)"))
print(("2024-01-15"):find("(%d+)-(%d+)-(%d+)"))
print(("  padded"):find("%S"), ("abc123"):find("%d+"))
print(("hello"):find("l+"), ("hello"):find("x*"), ("hello"):find("()ll()"))
print(("abc"):find("^b"), ("abc"):find("^a"), ("abc"):find("c$"), ("abc"):find("b$"))
print(("a$b"):find("$b"), ("a^b"):find("a^"))
print(("THE (quick) fox"):find("%((%a+)%)"))
