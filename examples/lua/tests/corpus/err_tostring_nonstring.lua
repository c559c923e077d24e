-- errors: error messages containing numbers and floats
local function msg(f) local ok, e = pcall(f) return e end
print(msg(function() error("value " .. 1.5) end))
print(msg(function() error(("%d items"):format(3)) end))
print(msg(function() error(1.0) end))
print(msg(function() error(-0.0) end))
