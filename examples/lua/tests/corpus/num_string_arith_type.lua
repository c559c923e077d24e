-- numbers: the result type of arithmetic on numeric strings follows the string's syntax
print("10" + 0, "10.0" + 0, "1e1" + 0, "0x1F" + 0)
print(math.type("10" + 0), math.type("10.0" + 0), math.type("1e1" + 0))
print("6" * "7", "6.0" * "7", "2" ^ "2", "9" / "3")
print("-5" // "2", "5" % "-3", -"0", -"-0.0")
print(" 12\t" + 0, "\n0x10\n" + 0)
