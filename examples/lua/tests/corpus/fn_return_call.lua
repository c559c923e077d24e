-- functions: return f() passes all results; return (f()) only the first
local function mr() return "a", "b", "c" end
local function all() return mr() end
local function one() return (mr()) end
local function plus() return mr(), "d" end
local function prefix() return "z", mr() end
print(all())
print(one())
print(plus())
print(prefix())
print(select("#", all()), select("#", one()), select("#", plus()), select("#", prefix()))
local function cond(flag) if flag then return mr() else return end end
print(select("#", cond(true)), select("#", cond(false)))
