-- library: the string table contains the expected functions
local names = {"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower",
  "match", "rep", "reverse", "sub", "upper"}
for _, n in ipairs(names) do io.write(n, "=", type(string[n]), " ") end print()
local tnames = {"concat", "insert", "move", "pack", "remove", "sort", "unpack"}
for _, n in ipairs(tnames) do io.write(n, "=", type(table[n]), " ") end print()
local mnames = {"abs", "ceil", "floor", "fmod", "huge", "maxinteger", "pi", "random", "sqrt", "tointeger", "type", "ult"}
for _, n in ipairs(mnames) do io.write(n, "=", type(math[n]), " ") end print()
