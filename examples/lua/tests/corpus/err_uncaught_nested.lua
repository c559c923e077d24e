-- errors: an uncaught error three calls deep
local function c(t) return t.field.sub end
local function b(t) return c(t) + 1 end
function a(t) return b(t) * 2 end
print(pcall(a, {}))
print(a({}))
