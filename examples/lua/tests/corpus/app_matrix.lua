-- app: a matrix class with multiply, transpose, determinant, inverse and power

local Matrix = {}
Matrix.__index = Matrix

function Matrix.new(rows, cols, fill)
  local m = setmetatable({rows = rows, cols = cols}, Matrix)
  for i = 1, rows do
    m[i] = {}
    for j = 1, cols do
      m[i][j] = type(fill) == "function" and fill(i, j) or (fill or 0)
    end
  end
  return m
end

function Matrix.from(t)
  return Matrix.new(#t, #t[1], function(i, j) return t[i][j] end)
end

function Matrix.identity(n)
  return Matrix.new(n, n, function(i, j) return i == j and 1 or 0 end)
end

function Matrix.__mul(a, b)
  if type(a) == "number" then a, b = b, a end
  if type(b) == "number" then
    return Matrix.new(a.rows, a.cols, function(i, j) return a[i][j] * b end)
  end
  if a.cols ~= b.rows then error(string.format("dimension mismatch: %dx%d * %dx%d", a.rows, a.cols, b.rows, b.cols), 2) end
  local r = Matrix.new(a.rows, b.cols)
  for i = 1, a.rows do
    local ai, ri = a[i], r[i]
    for j = 1, b.cols do
      local s = 0
      for k = 1, a.cols do s = s + ai[k] * b[k][j] end
      ri[j] = s
    end
  end
  return r
end

function Matrix.__add(a, b)
  return Matrix.new(a.rows, a.cols, function(i, j) return a[i][j] + b[i][j] end)
end

function Matrix.__sub(a, b)
  return Matrix.new(a.rows, a.cols, function(i, j) return a[i][j] - b[i][j] end)
end

function Matrix.__eq(a, b)
  if a.rows ~= b.rows or a.cols ~= b.cols then return false end
  for i = 1, a.rows do for j = 1, a.cols do if a[i][j] ~= b[i][j] then return false end end end
  return true
end

function Matrix.__tostring(m)
  local lines = {}
  for i = 1, m.rows do
    local cells = {}
    for j = 1, m.cols do
      local v = m[i][j]
      cells[j] = math.type(v) == "integer" and string.format("%6d", v) or string.format("%9.4f", v)
    end
    lines[i] = "[" .. table.concat(cells, " ") .. " ]"
  end
  return table.concat(lines, "\n")
end

function Matrix:transpose()
  return Matrix.new(self.cols, self.rows, function(i, j) return self[j][i] end)
end

function Matrix:det()
  assert(self.rows == self.cols, "square matrix required")
  local n = self.rows
  local a = Matrix.new(n, n, function(i, j) return self[i][j] end)
  local det = 1
  for col = 1, n do
    local pivot = col
    for r = col + 1, n do if math.abs(a[r][col]) > math.abs(a[pivot][col]) then pivot = r end end
    if a[pivot][col] == 0 then return 0 end
    if pivot ~= col then a[pivot], a[col] = a[col], a[pivot]; det = -det end
    det = det * a[col][col]
    for r = col + 1, n do
      local f = a[r][col] / a[col][col]
      for c = col, n do a[r][c] = a[r][c] - f * a[col][c] end
    end
  end
  return det
end

function Matrix:inverse()
  local n = self.rows
  local a = Matrix.new(n, 2 * n, function(i, j)
    if j <= n then return self[i][j] + 0.0 end
    return (j - n == i) and 1.0 or 0.0
  end)
  for col = 1, n do
    local pivot = col
    for r = col + 1, n do if math.abs(a[r][col]) > math.abs(a[pivot][col]) then pivot = r end end
    if a[pivot][col] == 0 then return nil, "singular matrix" end
    a[pivot], a[col] = a[col], a[pivot]
    local p = a[col][col]
    for c = 1, 2 * n do a[col][c] = a[col][c] / p end
    for r = 1, n do
      if r ~= col then
        local f = a[r][col]
        for c = 1, 2 * n do a[r][c] = a[r][c] - f * a[col][c] end
      end
    end
  end
  return Matrix.new(n, n, function(i, j) return a[i][j + n] end)
end

function Matrix:pow(k)
  local result, base = Matrix.identity(self.rows), self
  while k > 0 do
    if k % 2 == 1 then result = result * base end
    base = base * base
    k = k // 2
  end
  return result
end

local A = Matrix.from({{1, 2, 3}, {4, 5, 6}})
local B = Matrix.from({{7, 8}, {9, 10}, {11, 12}})
print(A * B)
print(B * A)
print(A:transpose())
print(2 * A == A + A, A * 3 == A + A + A, A:transpose():transpose() == A)
print(pcall(function() return A * A end))

local M = Matrix.from({{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}})
print(string.format("det = %.6f", M:det()))
local inv = M:inverse()
print(inv)
local check = M * inv
local maxerr = 0
for i = 1, 3 do for j = 1, 3 do
  maxerr = math.max(maxerr, math.abs(check[i][j] - (i == j and 1 or 0)))
end end
print("identity error small:", maxerr < 1e-12)
print(Matrix.from({{1, 2}, {2, 4}}):inverse())

local F = Matrix.from({{1, 1}, {1, 0}})
for _, k in ipairs({1, 10, 50, 90}) do print("fib", k, F:pow(k)[1][2]) end

-- a bigger product with a checksum
local n = 30
local X = Matrix.new(n, n, function(i, j) return (i * 7 + j * 3) % 11 - 5 end)
local Y = Matrix.new(n, n, function(i, j) return (i + 2 * j) % 7 - 3 end)
local Z = X * Y
local sum, trace = 0, 0
for i = 1, n do
  trace = trace + Z[i][i]
  for j = 1, n do sum = sum + Z[i][j] * ((i + j) % 5) end
end
print("checksum", sum, "trace", trace, "det(X 4x4)", Matrix.new(4, 4, function(i, j) return X[i][j] end):det())
local H = Matrix.new(4, 4, function(i, j) return 1 / (i + j - 1) end)
print(string.format("hilbert det = %.6e", H:det()))
print(H:inverse())
