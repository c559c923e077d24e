-- numbers: errors raised by numeric for
print(pcall(function() for i = 1, 10, 0 do end end))
print(pcall(function() for i = 1.0, 10, 0.0 do end end))
print(pcall(function() for i = "a", 2 do end end))
print(pcall(function() for i = 1, {} do end end))
print(pcall(function() for i = 1, 2, nil do end end))
print(pcall(function() for i = "1", 2 do end end))
print(pcall(function() for i = 1, 2, "1" do end end))
