-- errors: error values may be tables; they are passed through unchanged
local e = {code = 42, msg = "custom"}
local ok, err = pcall(error, e)
print(ok, err == e, err.code, err.msg)
ok, err = pcall(function() error({level = "x"}, 2) end)
print(ok, type(err), err.level)
local E = setmetatable({}, {__tostring = function() return "E object" end})
ok, err = pcall(error, E)
print(ok, tostring(err), err == E)
