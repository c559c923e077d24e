-- syntax error: unfinished long comment
print(1)
--[[ this comment
never ends
