-- library: load with a reader function that returns pieces
local pieces = {"return ", "1 ", "+ ", "41"}
local i = 0
local f = load(function() i = i + 1 return pieces[i] end)
print(f())
local src = "local t = {} for i = 1, 5 do t[i] = i * i end return table.concat(t, ',')"
local pos = 0
local g = load(function()
  if pos >= #src then return nil end
  local chunk = src:sub(pos + 1, pos + 7)
  pos = pos + 7
  return chunk
end, "=reader")
print(g())
print(type(load(function() return nil end)))
local calls = 0
local h = load(function() calls = calls + 1 if calls == 1 then return "return 'once'" end return "" end)
print(h(), calls)
print(pcall(load, function() return {} end))
