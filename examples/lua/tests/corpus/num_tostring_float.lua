-- numbers: float formatting uses %.14g and keeps a ".0" on integral values
local vals = {0.1, 1/3, 2/3, 100.0, 1e14, 1e15, 1e16, 1e100, 123456789012345.0,
  1234567890123456.0, 2^53, -0.0, 1e-5, 0.0001, 3.14159265358979, 1e300 * 1e10,
  5e-324, 2.5, -1.5e-7, 255 / 5, 1e14 + 0.5, 12345678901234.5}
for i, v in ipairs(vals) do print(i, v, tostring(v)) end
print(tostring(10 / 2), 3.0, -3.0, 1e0)
