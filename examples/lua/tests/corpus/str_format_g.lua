-- strings: %g picks fixed or exponent notation and strips zeros
local vals = {0, 1, -1, 0.5, 100, 1e5, 1e6, 1e-4, 1e-5, 123456, 1234567, 0.000123456, 1/3, 2^63}
for _, v in ipairs(vals) do io.write(string.format("%g", v), " ") end print()
for _, v in ipairs(vals) do io.write(string.format("%.3g", v), " ") end print()
print(string.format("%10g|%-10g|%010g", 1.5, 1.5, 1.5))
print(string.format("%g %g %g", 1/0, -1/0, 1e300))
print(string.format("%.0g %.1g %#.0g", 123, 123, 123))
