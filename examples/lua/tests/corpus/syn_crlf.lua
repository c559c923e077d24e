-- syntax: CRLF line endings are accepted and line numbers count correctly
local a = 1
local s = [[x
y]]
print(a, #s)
print(select(2, pcall(error, "here")))
local ok, msg = pcall(function() local z = nil; return z.f end)
print(msg)
