-- syntax error: malformed number
local x = 3x
