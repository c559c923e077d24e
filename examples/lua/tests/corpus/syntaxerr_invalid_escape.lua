-- syntax error: invalid escape sequence
print("bad \q escape")
