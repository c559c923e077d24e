-- strings: upper/lower over all bytes only change ASCII letters (C locale)
local changed_up, changed_low = 0, 0
for i = 0, 255 do
  local c = string.char(i)
  if c:upper() ~= c then changed_up = changed_up + 1 end
  if c:lower() ~= c then changed_low = changed_low + 1 end
end
print(changed_up, changed_low)
local all = {}
for i = 32, 126 do all[#all + 1] = string.char(i) end
local s = table.concat(all)
print(s:upper())
print(s:lower())
