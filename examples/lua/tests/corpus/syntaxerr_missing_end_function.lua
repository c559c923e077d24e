-- syntax error: unclosed function reports where it started
print("start")
local function f()
  for i = 1, 3 do
    print(i)
  end

