-- syntax error: name expected after dot
local t = {}
print(t.)
