-- syntax: field access forms t.x, t["x"], t[expr]
local t = {}
t.x = 1
t["y"] = 2
local k = "z"
t[k] = 3
t[1] = "one"
t[k .. k] = "zz"
print(t.x, t["x"], t.y, t.z, t[1], t.zz)
t.x = nil
print(t.x)
local nested = {a = {b = {c = "found"}}}
print(nested.a.b.c, nested["a"]["b"]["c"], nested.a["b"].c)
