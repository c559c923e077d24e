-- errors: nested pcall, rethrowing and error objects keeping identity
local function inner() error("inner failure") end
local function middle()
  local ok, e = pcall(inner)
  error("middle saw: " .. e, 0)
end
print(pcall(middle))
local obj = {}
local ok, e = pcall(function()
  local ok2, e2 = pcall(error, obj)
  error(e2)
end)
print(ok, e == obj)
local results = {}
for i = 1, 3 do
  results[i] = select(2, pcall(function()
    if i == 2 then error("at " .. i, 0) end
    return "ok " .. i
  end))
end
print(table.concat(results, ", "))
print(pcall(pcall, pcall, error, "deep"))
