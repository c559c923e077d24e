-- metatables: rawget, rawset, rawequal, rawlen bypass metamethods
local mt = {
  __index = function() return "meta" end,
  __newindex = function() error("blocked") end,
  __eq = function() return true end,
  __len = function() return 100 end,
}
local t = setmetatable({1, 2}, mt)
local u = setmetatable({}, mt)
print(t.x, rawget(t, "x"), rawget(t, 1))
print(pcall(function() t.y = 1 end))
print(rawset(t, "y", 5) == t, rawget(t, "y"), t.y)
print(t == u, rawequal(t, u), rawequal(t, t), rawequal(1, 1.0), rawequal("a", "a"))
print(#t, rawlen(t), rawlen({1, 2, 3}), rawlen("xyz"))
print(pcall(rawget, "str", 1))
print(pcall(rawset, {}, nil, 1))
print(pcall(rawequal, 1))
print(pcall(rawlen, nil))
