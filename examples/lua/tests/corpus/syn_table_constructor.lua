-- syntax: table constructors: positional, named, computed keys, separators
local t = {1, 2, 3, x = "ex", ["y z"] = "why", [10] = "ten", [1 + 1 + 1 + 1] = "four"}
print(t[1], t[2], t[3], t.x, t["y z"], t[10], t[4])
local u = {1, 2, 3,}
print(#u)
local v = {1; 2; 3;}
print(#v)
local w = {"a", "b"; "c", n = 3; }
print(#w, w.n, w[3])
local nested = {{1, 2}, {3, {4, 5}}, k = {deep = {deeper = "yes"}}}
print(nested[2][2][1], nested.k.deep.deeper)
local function three() return 1, 2, 3 end
local e = {three(), three()}
print(#e, e[1], e[2], e[4])
local f = {three(), 10}
print(#f, f[1], f[2])
local g = {(three())}
print(#g)
local h = {[true] = "t", [false] = "f", [1.5] = "float"}
print(h[true], h[false], h[1.5])
