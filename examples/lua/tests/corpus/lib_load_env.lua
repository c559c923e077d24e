-- library: load with a custom environment table and mode
local env = {print = print, x = 10}
local f = load("y = x * 2; return y", "chunk", "t", env)
print(f(), env.y, y)
local sandbox = setmetatable({}, {__index = _G})
load("created = 'in sandbox'", "sb", "t", sandbox)()
print(sandbox.created, created)
local empty = load("return print", "e", "t", {})
print(empty())
print(pcall(load("return tostring(1)", "e2", "t", {})))
print(load("return 1", "m", "t")())
print(load("return 1", "m", "bt")())
print(load("return 1", "m", "b"))
local env2 = {}
local g = load("function f() return 'env function' end", "=def", "t", env2)
g()
print(env2.f(), rawget(_G, "f"))
