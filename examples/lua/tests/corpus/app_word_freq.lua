-- app: word frequency count, bigrams and a text report with sorted, formatted output

local text = [[
It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of
incredulity, it was the season of Light, it was the season of Darkness, it was
the spring of hope, it was the winter of despair, we had everything before us,
we had nothing before us, we were all going direct to Heaven, we were all going
direct the other way -- in short, the period was so far like the present period,
that some of its noisiest authorities insisted on its being received, for good
or for evil, in the superlative degree of comparison only.
]]

local stop = {}
for w in ("the of it was a to in we on for or"):gmatch("%a+") do stop[w] = true end

local function words(s)
  local list = {}
  for w in s:lower():gmatch("%a+") do list[#list + 1] = w end
  return list
end

local all = words(text)
print("total words:", #all)

local freq, distinct = {}, 0
for _, w in ipairs(all) do
  if not freq[w] then distinct = distinct + 1 end
  freq[w] = (freq[w] or 0) + 1
end
print("distinct words:", distinct)

local function sorted_by_count(map, filter)
  local items = {}
  for k, v in pairs(map) do
    if not filter or filter(k) then items[#items + 1] = {word = k, count = v} end
  end
  table.sort(items, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    return a.word < b.word
  end)
  return items
end

print("\ntop 10 words:")
local items = sorted_by_count(freq)
for i = 1, 10 do
  local it = items[i]
  print(string.format("%2d. %-12s %3d %s", i, it.word, it.count, string.rep("*", it.count)))
end

print("\ntop content words:")
local content = sorted_by_count(freq, function(w) return not stop[w] end)
for i = 1, 8 do
  io.write(string.format("%s(%d)", content[i].word, content[i].count), i < 8 and ", " or "\n")
end

-- bigrams
local bigrams = {}
for i = 1, #all - 1 do
  local b = all[i] .. " " .. all[i + 1]
  bigrams[b] = (bigrams[b] or 0) + 1
end
print("\nrepeated bigrams:")
for _, it in ipairs(sorted_by_count(bigrams, function(b) return bigrams[b] >= 3 end)) do
  print(string.format("  %-16s %d", it.word, it.count))
end

-- word lengths histogram
local lengths = {}
local maxlen = 0
for _, w in ipairs(all) do
  lengths[#w] = (lengths[#w] or 0) + 1
  if #w > maxlen then maxlen = #w end
end
print("\nlength histogram:")
for len = 1, maxlen do
  local c = lengths[len] or 0
  if c > 0 then print(string.format("%2d | %-25s %d", len, string.rep("#", c), c)) end
end

-- longest words, alphabetical among equals
local uniq = {}
for w in pairs(freq) do uniq[#uniq + 1] = w end
table.sort(uniq, function(a, b) if #a ~= #b then return #a > #b end return a < b end)
print("\nlongest:", table.concat(uniq, " ", 1, 5))

-- sentences and capitalized words (case preserved)
local caps = {}
for w in text:gmatch("%f[%a]%u%l*") do caps[#caps + 1] = w end
print("capitalized:", table.concat(caps, " "))
local sentences = 0
for _ in text:gmatch("[%.!?]") do sentences = sentences + 1 end
print("sentences:", sentences)

-- letter frequency
local letters = {}
for c in text:lower():gmatch("%a") do letters[c] = (letters[c] or 0) + 1 end
local lf = sorted_by_count(letters)
local top = {}
for i = 1, 6 do top[i] = lf[i].word .. "=" .. lf[i].count end
print("letters:", table.concat(top, " "))
local vowels = 0
for _, v in ipairs({"a", "e", "i", "o", "u"}) do vowels = vowels + (letters[v] or 0) end
print(string.format("vowel ratio: %.4f", vowels / #text:gsub("%A", "")))
