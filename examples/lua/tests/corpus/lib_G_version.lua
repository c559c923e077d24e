-- library: _G and _VERSION
print(_VERSION)
print(_G._G == _G, _G.print == print, _G["string"] == string)
newglobal = 5
print(_G.newglobal, rawget(_G, "newglobal"))
_G.fromG = "set via _G"
print(fromG)
local names = {}
for _, n in ipairs({"assert", "error", "ipairs", "load", "next", "pairs", "pcall", "print",
  "rawequal", "rawget", "rawlen", "rawset", "require", "select", "setmetatable",
  "getmetatable", "tonumber", "tostring", "type", "xpcall"}) do
  if type(_G[n]) ~= "function" then names[#names + 1] = n end
end
print("missing:", #names)
for _, lib in ipairs({"string", "table", "math", "io", "os", "package"}) do io.write(lib, "=", type(_G[lib]), " ") end
print()
local env_count = 0
for k, v in pairs(_G) do if k == "newglobal" then env_count = env_count + 1 end end
print(env_count)
