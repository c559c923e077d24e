-- syntax error: missing end at end of file
if true then
  print("x")
