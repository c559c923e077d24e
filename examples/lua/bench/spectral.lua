-- spectral: spectral norm of an infinite matrix (float arithmetic, array loops, function calls)
local n = tonumber(arg and arg[1]) or 800

local function A(i, j)
  local ij = i + j - 2
  return 1.0 / (ij * (ij + 1) / 2 + i)
end

local function mul_Av(x, y, len)
  for i = 1, len do
    local s = 0.0
    for j = 1, len do s = s + A(i, j) * x[j] end
    y[i] = s
  end
end

local function mul_Atv(x, y, len)
  for i = 1, len do
    local s = 0.0
    for j = 1, len do s = s + A(j, i) * x[j] end
    y[i] = s
  end
end

local function mul_AtAv(x, y, t, len)
  mul_Av(x, t, len)
  mul_Atv(t, y, len)
end

local u, v, t = {}, {}, {}
for i = 1, n do u[i] = 1.0; v[i] = 0.0; t[i] = 0.0 end
for _ = 1, 10 do
  mul_AtAv(u, v, t, n)
  mul_AtAv(v, u, t, n)
end
local vBv, vv = 0.0, 0.0
for i = 1, n do
  vBv = vBv + u[i] * v[i]
  vv = vv + v[i] * v[i]
end
print(string.format("%0.9f", math.sqrt(vBv / vv)))
