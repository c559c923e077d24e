-- syntax: and/or return operands, short-circuit evaluation
print(nil or false, false or nil, nil and 1, false and nil)
print(1 and 2, nil or "default", false or 0, 0 and "zero is true")
print(1 or 2, "a" and "b" or "c", nil and "b" or "c")
local calls = 0
local function hit(v) calls = calls + 1; return v end
local r = hit(false) and hit(true)
print(r, calls)
r = hit(true) or hit(false)
print(r, calls)
r = hit(nil) or hit(false) or hit("last")
print(r, calls)
print(not nil, not 0, not "", not not {})
local t = nil
print(t and t.x or "safe")
local function max(a, b) return a > b and a or b end
print(max(3, 9), max(9, 3))
print((nil or 5) + 1)
