-- strings: gsub and gmatch with patterns that can match the empty string
print(("abc"):gsub("", "-"))
print(("hello world"):gsub("%w*", "X"))
print(("abc"):gsub("x*", "-"))
print(("a,,b"):gsub("[^,]*", "<%0>"))
local parts = {}
for p in ("a,,b"):gmatch("[^,]*") do parts[#parts + 1] = "[" .. p .. "]" end
print(table.concat(parts))
print((""):gsub("", "E"), (""):gsub(".", "E"))
