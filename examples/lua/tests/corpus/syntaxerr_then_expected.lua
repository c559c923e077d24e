-- syntax error: then expected
if 1 == 1 print("x") end
