-- syntax error: unfinished string
local s = "abc
print(s)
