-- strings: string.gmatch iteration with and without captures
local words = {}
for w in ("one two  three\tfour"):gmatch("%S+") do words[#words + 1] = w end
print(#words, table.concat(words, ","))
local pairs_ = {}
for k, v in ("a=1, b=22, c=333"):gmatch("(%w+)=(%w+)") do pairs_[#pairs_ + 1] = k .. ":" .. v end
print(table.concat(pairs_, " "))
local n = 0
for _ in ("banana"):gmatch("a") do n = n + 1 end
print(n)
for p in ("abc"):gmatch("()") do io.write(p, " ") end print()
for d in ("x1y22z333"):gmatch("%d+", 4) do io.write(d, " ") end print()
for c in ("hey"):gmatch(".") do io.write("[", c, "]") end print()
local it = ("a,b,,c"):gmatch("([^,]*)")
print(it(), it(), it(), it(), it())
