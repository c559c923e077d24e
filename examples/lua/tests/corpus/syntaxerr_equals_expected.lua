-- syntax error: = expected
local t = {}
t.x 5
