-- errors: call error messages name the offending variable
local function msg(f) local ok, e = pcall(f) return e end
local t = {}
local up = 5
print(msg(function() local f; f() end))
print(msg(function() undefinedfn() end))
print(msg(function() t.method() end))
print(msg(function() t:method() end))
print(msg(function() up() end))
print(msg(function() ("str")() end))
print(msg(function() t.a.b() end))
print(msg(function() local x = {}; x() end))
print(msg(function() string.nosuch("x") end))
print(msg(function() (1)() end))
