-- errors: uncaught bad argument from a library call
local t = nil
table.insert(t, "x")
