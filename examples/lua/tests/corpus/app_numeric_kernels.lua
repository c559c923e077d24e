-- app: spectral-norm, fannkuch-redux and mandelbrot kernels at small sizes

-- spectral norm -----------------------------------------------------------
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end

local function Av(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(i, j) end
    y[i] = a
  end
end

local function Atv(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(j, i) end
    y[i] = a
  end
end

local function AtAv(x, y, t, N)
  Av(x, t, N)
  Atv(t, y, N)
end

local function spectral_norm(N)
  local u, v, t = {}, {}, {}
  for i = 1, N do u[i] = 1 end
  for _ = 1, 10 do AtAv(u, v, t, N) AtAv(v, u, t, N) end
  local vBv, vv = 0, 0
  for i = 1, N do
    local ui, vi = u[i], v[i]
    vBv = vBv + ui * vi
    vv = vv + vi * vi
  end
  return math.sqrt(vBv / vv)
end

for _, n in ipairs({10, 50, 100}) do
  print(string.format("spectral norm %3d: %0.9f", n, spectral_norm(n)))
end

-- fannkuch-redux ------------------------------------------------------------
local function fannkuch(n)
  local p, q, s, sign, maxflips, sum = {}, {}, {}, 1, 0, 0
  for i = 1, n do p[i] = i; q[i] = i; s[i] = i end
  repeat
    -- copy and flip
    local q1 = p[1]
    if q1 ~= 1 then
      for i = 2, n do q[i] = p[i] end
      local flips = 1
      repeat
        local qq = q[q1]
        if qq == 1 then
          sum = sum + sign * flips
          if flips > maxflips then maxflips = flips end
          break
        end
        q[q1] = q1
        if q1 >= 4 then
          local i, j = 2, q1 - 1
          repeat q[i], q[j] = q[j], q[i]; i = i + 1; j = j - 1; until i >= j
        end
        q1 = qq
        flips = flips + 1
      until false
    end
    -- permute
    if sign == 1 then
      p[2], p[1] = p[1], p[2]
      sign = -1
    else
      p[2], p[3] = p[3], p[2]
      sign = 1
      for i = 3, n do
        local sx = s[i]
        if sx ~= 1 then s[i] = sx - 1; break end
        if i == n then return sum, maxflips end
        s[i] = i
        local t = p[1]
        for j = 1, i do p[j] = p[j + 1] end
        p[i + 1] = t
      end
    end
  until false
end

for n = 3, 7 do
  local sum, flips = fannkuch(n)
  print(string.format("fannkuch(%d): checksum %d, max flips %d", n, sum, flips))
end

-- mandelbrot (ASCII) --------------------------------------------------------
local function mandel(w, h, iter)
  local rows = {}
  local inside = 0
  for y = 0, h - 1 do
    local ci = (y / h) * 2.4 - 1.2
    local row = {}
    for x = 0, w - 1 do
      local cr = (x / w) * 3.2 - 2.2
      local zr, zi, n = 0.0, 0.0, 0
      while n < iter and zr * zr + zi * zi <= 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        n = n + 1
      end
      if n == iter then inside = inside + 1 end
      row[#row + 1] = n == iter and "#" or (n > 6 and "+" or (n > 3 and "." or " "))
    end
    rows[#rows + 1] = table.concat(row)
  end
  return rows, inside
end

local rows, inside = mandel(48, 20, 50)
for _, r in ipairs(rows) do print(r) end
print("points inside:", inside)

-- numerical integration and a series -----------------------------------------
local function simpson(f, a, b, n)
  local h = (b - a) / n
  local s = f(a) + f(b)
  for i = 1, n - 1 do s = s + f(a + i * h) * (i % 2 == 1 and 4 or 2) end
  return s * h / 3
end
print(string.format("integral sin 0..pi: %0.9f", simpson(math.sin, 0, math.pi, 100)))
print(string.format("integral x^2 0..3: %0.9f", simpson(function(x) return x * x end, 0, 3, 10)))
local leibniz = 0
for k = 0, 9999 do leibniz = leibniz + (k % 2 == 0 and 1 or -1) / (2 * k + 1) end
print(string.format("leibniz pi: %0.9f", 4 * leibniz))
