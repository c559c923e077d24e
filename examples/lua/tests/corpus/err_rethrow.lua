-- errors: catching, inspecting and rethrowing
local function risky(n)
  if n % 3 == 0 then error({n = n}) end
  if n % 5 == 0 then error("five: " .. n, 0) end
  return n
end
local log = {}
for i = 1, 10 do
  local ok, e = pcall(risky, i)
  if ok then log[#log + 1] = tostring(e)
  elseif type(e) == "table" then log[#log + 1] = "T" .. e.n
  else log[#log + 1] = e end
end
print(table.concat(log, " | "))
local function wrap(f, ...)
  local r = table.pack(pcall(f, ...))
  if not r[1] then error("wrapped: " .. tostring(r[2]), 0) end
  return table.unpack(r, 2, r.n)
end
print(pcall(wrap, risky, 5))
print(pcall(wrap, risky, 7))
