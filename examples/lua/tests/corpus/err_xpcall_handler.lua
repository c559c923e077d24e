-- errors: xpcall with message handlers
local function handler(msg) return "handled: " .. tostring(msg) end
print(xpcall(function() error("oops") end, handler))
print(xpcall(function() error({}) end, function(e) return type(e) end))
print(xpcall(function(a, b) return a * b end, handler, 6, 7))
print(xpcall(function() return "fine" end, handler))
print(xpcall(function() local t = nil; return t[1] end, function(m) return (m:gsub("^.-:%d+: ", "")) end))
print(xpcall(error, function(m) return m end, "direct", 0))
local depth = 0
print(xpcall(function() error("x", 0) end, function(m) depth = depth + 1; return m .. depth end))
print(pcall(xpcall, function() end))
print(xpcall(function() error("in handler test") end, function() error("handler fails") end))
