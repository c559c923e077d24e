-- metatables: __newindex as a table redirects new keys
local store = {}
local proxy = setmetatable({}, {__newindex = store})
proxy.a = 1
proxy.b = 2
print(rawget(proxy, "a"), store.a, store.b)
rawset(proxy, "c", 3)
print(proxy.c, store.c)
local existing = setmetatable({x = 1}, {__newindex = store})
existing.x = 10
existing.y = 20
print(existing.x, rawget(existing, "y"), store.y)
local inner = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v * 100) end})
local outer = setmetatable({}, {__newindex = inner})
outer.z = 5
print(rawget(outer, "z"), inner.z)
