-- syntax error: missing closing parenthesis
print((1 + 2)
print(3)
