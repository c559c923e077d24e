-- list: list manipulation on tables: table.insert/remove at the ends and in the middle, reversal, filtering
local n = tonumber(arg and arg[1]) or 900

local function reverse(t)
  local i, j = 1, #t
  while i < j do
    t[i], t[j] = t[j], t[i]
    i = i + 1
    j = j - 1
  end
end

local function build(size)
  local t = {}
  for i = 1, size do table.insert(t, i) end
  return t
end

local function round(size)
  local t = build(size)
  -- insert in front and in the middle
  for i = 1, 50 do
    table.insert(t, 1, -i)
    table.insert(t, math.floor(#t / 2) + 1, i * 1000)
  end
  reverse(t)
  -- filter: keep odd values, into a new list
  local odd = {}
  for i = 1, #t do
    local v = t[i]
    if v % 2 ~= 0 then odd[#odd + 1] = v end
  end
  -- remove from the end and from the front
  local sum = 0
  while #odd > 10 do
    sum = sum + table.remove(odd)
    sum = sum - table.remove(odd, 1) * 2
  end
  -- a linked list of the rest, walked and reversed
  local head = nil
  for i = 1, #odd do head = { value = odd[i], next = head } end
  local prev = nil
  while head do
    local nxt = head.next
    head.next = prev
    prev = head
    head = nxt
  end
  local node = prev
  local k = 0
  while node do
    k = k + 1
    sum = sum + node.value * k
    node = node.next
  end
  return sum + #t
end

local total = 0
for r = 1, n do
  total = (total + round(1000 + r % 17)) % 1000000007
end
print(string.format("list(%d): %d", n, total))
