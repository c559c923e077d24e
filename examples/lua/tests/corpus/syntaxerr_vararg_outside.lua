-- syntax error: vararg outside a vararg function
local function f()
  return ...
end
