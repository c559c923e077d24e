-- strings: %a and %A hexadecimal float output
print(string.format("%a", 1.0), string.format("%a", 0.5), string.format("%a", -2.5))
print(string.format("%A", 255.5), string.format("%a", 0.0), string.format("%a", 1))
print(string.format("%.2a", 1.0), string.format("%a", 2^-1074))
print(tonumber(string.format("%a", 0.1)) == 0.1)
