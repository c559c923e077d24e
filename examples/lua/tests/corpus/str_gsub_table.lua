-- strings: gsub with a table: the first capture (or whole match) is the key
local vars = {name = "Lua", version = "5.4", empty = "", no = false}
local tmpl = "$name $version [$empty] $no $missing"
print(tmpl:gsub("%$(%w+)", vars))
local nums = {["1"] = "one", ["2"] = "two"}
print(("1 2 3"):gsub("%d", nums))
print(("a b"):gsub("%a", {a = 10, b = 2.5}))
print(pcall(string.gsub, "a", "a", {a = {}}))
local mt = setmetatable({}, {__index = function(_, k) return k:upper() end})
print(("abc def"):gsub("%a+", mt))
