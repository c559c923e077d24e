-- syntax error: unfinished long string
local s = [[never
closed
