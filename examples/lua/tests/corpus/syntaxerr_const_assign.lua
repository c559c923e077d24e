-- syntax error: assignment to a const variable
local limit <const> = 10
limit = 11
