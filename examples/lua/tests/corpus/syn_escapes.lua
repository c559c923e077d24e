-- syntax: escape sequences in short strings
print("tab:\t|", "quote:\"", 'single:\'', "backslash:\\")
print(("\a\b\f\n\r\t\v"):byte(1, -1))
print("\65\066\0671", "\x41\x62\x7A", #"\0\00\000")
print("\u{48}\u{49}", ("\u{7FF}"):byte(1, -1))
print(("\u{10FFFF}"):byte(1, -1))
print("a\z
       b\z   c")
print("line1\
line2")
print('mixed "quotes" and \'escapes\'')
print(#"\z

   ", "\1\2\3" == string.char(1, 2, 3))
print("\x00end" == "\0end", ("\255"):byte())
