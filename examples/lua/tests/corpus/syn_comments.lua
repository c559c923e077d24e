-- syntax: line comments, block comments with levels, comments between tokens
print("start") -- trailing comment
--[[ a block
comment spanning lines ]] print("after block comment on same line")
--[==[ level-2 block comment containing ]] and ]=] ]==]
print("after level-2")
local x = 1 --[[ inline ]] + 2
print(x)
---[[ this is a line comment because of the extra dash
print("not commented out")
--]]
--[[
print("commented out")
--]]
print(--[[ in args ]] "arg", --[=[ two ]=] 3)
-- comment at end of file without newline
-- last line has no newline