-- tables: "1" and 1 are distinct keys
local t = {}
t[1] = "number"
t["1"] = "string"
print(t[1], t["1"], t[tonumber("1")], t[tostring(1)])
t["01"] = "leading zero"
print(t["01"], t[01])
local count = 0
for _ in pairs(t) do count = count + 1 end
print(count)
