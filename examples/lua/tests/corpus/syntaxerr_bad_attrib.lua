-- syntax error: unknown attribute
local x <foo> = 1
