-- strings: character classes and their complements
local all = {}
for i = 0, 127 do all[#all + 1] = string.char(i) end
local ascii = table.concat(all)
local classes = {"a", "c", "d", "g", "l", "p", "s", "u", "w", "x"}
for _, c in ipairs(classes) do
  local lower = select(2, ascii:gsub("%" .. c, ""))
  local upper = select(2, ascii:gsub("%" .. c:upper(), ""))
  print("%" .. c, lower, upper, lower + upper)
end
print(("hello world"):match("%a+"), ("  x1_y2 "):match("[%w_]+"), ("0x1F;"):match("%x+", 3))
print(("Tab\there"):match("%s"), ("a.b"):match("%p"), ("MixedCase"):match("%u%l+", 2))
print(("x = 10"):match("%D+"), ("abc   def"):match("%S+$"))
