-- strings: building strings from bytes and checksums
local s = "The quick brown fox jumps over the lazy dog"
local sum, xor = 0, 0
for i = 1, #s do
  local b = s:byte(i)
  sum = sum + b
  xor = xor ~ b
end
print(#s, sum, xor)
local freq = {}
for c in s:lower():gmatch("%a") do freq[c] = (freq[c] or 0) + 1 end
local letters = {}
for c in pairs(freq) do letters[#letters + 1] = c end
table.sort(letters)
print(#letters)
local out = {}
for _, c in ipairs(letters) do if freq[c] > 1 then out[#out + 1] = c .. freq[c] end end
print(table.concat(out, " "))
local rot13 = s:gsub("%a", function(c)
  local base = c:match("%l") and 97 or 65
  return string.char((c:byte() - base + 13) % 26 + base)
end)
print(rot13)
