-- errors: numeric for loop argument errors
local function msg(f) local ok, e = pcall(f) return e end
print(msg(function() for i = nil, 10 do end end))
print(msg(function() for i = 1, "x" do end end))
print(msg(function() for i = 1, 10, {} do end end))
print(msg(function() for i = 1, 10, 0 do end end))
print(msg(function() for i = 1.5, 10, 0 do end end))
print(msg(function() for k, v in nil do end end))
print(msg(function() for k, v in 42 do end end))
