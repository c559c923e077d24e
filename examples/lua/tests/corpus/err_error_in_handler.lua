-- errors: errors inside message handlers and handlers returning many values
print(xpcall(error, function() error("again") end, "start"))
print(xpcall(function() error("e") end, function(m) return 1, 2, 3 end))
print(xpcall(function() error("e") end, function(m) end))
local count = 0
print(xpcall(function() error("e", 0) end, function(m) count = count + 1; return m .. count end), count)
