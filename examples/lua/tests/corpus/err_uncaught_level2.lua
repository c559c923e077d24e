-- errors: an uncaught error raised at level 2 reports the caller's line
local function check(v)
  if type(v) ~= "number" then
    error("expected a number, got " .. type(v), 2)
  end
  return v
end
print(check(1))
local x = check("no")
print(x)
