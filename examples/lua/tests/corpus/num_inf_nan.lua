-- numbers: inf and nan printing and behaviour
local inf, nan = math.huge, 0 / 0
print(inf, -inf, nan, -nan)
print(tostring(inf), tostring(-inf), string.format("%f", inf), string.format("%.1f", -inf))
print(inf == inf, inf > 1e308, -inf < -1e308, inf - inf ~= inf - inf)
print(nan == nan, nan ~= nan, nan < nan, nan >= nan)
print(math.type(inf), math.type(nan), inf // 1, -inf // 1)
print(math.floor(2.5), pcall(math.floor, inf))
print(math.max(1, inf), math.min(-inf, 0), inf * 0 ~= inf * 0)
print(string.format("%d", 3), pcall(string.format, "%d", inf))
