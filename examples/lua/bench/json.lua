-- json: generate a JSON-style document of N records, then parse it back with a recursive-descent parser
-- over string.byte/string.sub, and walk the result
local n = tonumber(arg and arg[1]) or 50000

---------------------------------------------------------------- generating the document
local seed = 42
local function rand(m) -- Park-Miller, exact in doubles
  seed = (seed * 16807) % 2147483647
  return seed % m
end

local words = { "red", "green", "blue", "quick", "brown", "fox", "lazy", "dog", "tab\\t", "quote\\\"d", "new\\nline" }

local function gen(count)
  local out = { "[" }
  for i = 1, count do
    if i > 1 then out[#out + 1] = "," end
    local tags = {}
    for k = 1, rand(4) do tags[k] = '"' .. words[rand(#words) + 1] .. '"' end
    out[#out + 1] = string.format(
      '\n  {"id": %d, "name": "item%d", "price": %d.%02d, "neg": -%d, "exp": %de2, ' ..
      '"tags": [%s], "ok": %s, "none": null, "pos": {"x": %d, "y": -%d.5}}',
      i, i * 7, rand(1000), rand(100), rand(50), rand(9),
      table.concat(tags, ", "), (rand(2) == 0) and "true" or "false", rand(640), rand(480))
  end
  out[#out + 1] = "\n]\n"
  return table.concat(out)
end

---------------------------------------------------------------- the parser
local byte, sub = string.byte, string.sub
local B_SPACE, B_TAB, B_NL, B_CR = 32, 9, 10, 13
local B_LBRACE, B_RBRACE, B_LBRACK, B_RBRACK = 123, 125, 91, 93
local B_COMMA, B_COLON, B_QUOTE, B_BSLASH = 44, 58, 34, 92
local B_MINUS, B_0, B_9 = 45, 48, 57
local NULL = {} -- a sentinel for null

local src, pos

local function fail(what)
  error(string.format("json: %s at %d", what, pos))
end

local function skip()
  local c = byte(src, pos)
  while c == B_SPACE or c == B_NL or c == B_TAB or c == B_CR do
    pos = pos + 1
    c = byte(src, pos)
  end
  return c
end

local escapes = { [110] = "\n", [116] = "\t", [114] = "\r", [98] = "\b", [102] = "\f",
                  [34] = '"', [92] = "\\", [47] = "/" }

local parse_value

local function parse_string()
  pos = pos + 1 -- the opening quote
  local start = pos
  local parts = nil
  while true do
    local c = byte(src, pos)
    if c == nil then fail("unterminated string") end
    if c == B_QUOTE then break end
    if c == B_BSLASH then
      parts = parts or {}
      parts[#parts + 1] = sub(src, start, pos - 1)
      local e = escapes[byte(src, pos + 1)]
      if e == nil then fail("bad escape") end
      parts[#parts + 1] = e
      pos = pos + 2
      start = pos
    else
      pos = pos + 1
    end
  end
  local s = sub(src, start, pos - 1)
  pos = pos + 1
  if parts then
    parts[#parts + 1] = s
    return table.concat(parts)
  end
  return s
end

local function parse_number()
  local start = pos
  local c = byte(src, pos)
  if c == B_MINUS then pos = pos + 1; c = byte(src, pos) end
  while c and ((c >= B_0 and c <= B_9) or c == 46 or c == 101 or c == 69 or c == 43 or c == B_MINUS) do
    pos = pos + 1
    c = byte(src, pos)
  end
  local v = tonumber(sub(src, start, pos - 1))
  if v == nil then fail("bad number") end
  return v
end

local function parse_array()
  pos = pos + 1
  local arr = {}
  if skip() == B_RBRACK then pos = pos + 1; return arr end
  while true do
    arr[#arr + 1] = parse_value()
    local c = skip()
    pos = pos + 1
    if c == B_RBRACK then return arr end
    if c ~= B_COMMA then fail("expected ',' or ']'") end
  end
end

local function parse_object()
  pos = pos + 1
  local obj = {}
  if skip() == B_RBRACE then pos = pos + 1; return obj end
  while true do
    if skip() ~= B_QUOTE then fail("expected a key") end
    local key = parse_string()
    if skip() ~= B_COLON then fail("expected ':'") end
    pos = pos + 1
    obj[key] = parse_value()
    local c = skip()
    pos = pos + 1
    if c == B_RBRACE then return obj end
    if c ~= B_COMMA then fail("expected ',' or '}'") end
  end
end

function parse_value()
  local c = skip()
  if c == B_LBRACE then return parse_object() end
  if c == B_LBRACK then return parse_array() end
  if c == B_QUOTE then return parse_string() end
  if c == B_MINUS or (c and c >= B_0 and c <= B_9) then return parse_number() end
  if sub(src, pos, pos + 3) == "true" then pos = pos + 4; return true end
  if sub(src, pos, pos + 4) == "false" then pos = pos + 5; return false end
  if sub(src, pos, pos + 3) == "null" then pos = pos + 4; return NULL end
  fail("unexpected character")
end

local function parse(s)
  src, pos = s, 1
  local v = parse_value()
  if skip() ~= nil then fail("trailing garbage") end
  return v
end

---------------------------------------------------------------- walking the result
local doc = gen(n)
local records = parse(doc)

local ids, oks, nulls, tagcount, taglen = 0, 0, 0, 0, 0
local price, neg, exp, xy = 0.0, 0, 0, 0.0
for i = 1, #records do
  local r = records[i]
  ids = ids + r.id
  if r.ok then oks = oks + 1 end
  if r.none == NULL then nulls = nulls + 1 end
  for k = 1, #r.tags do
    tagcount = tagcount + 1
    taglen = taglen + #r.tags[k]
  end
  price = price + r.price
  neg = neg + r.neg
  exp = exp + r.exp
  xy = xy + r.pos.x + r.pos.y
  if r.name ~= "item" .. string.format("%d", i * 7) then error("bad name") end
end
print(string.format("json(%d): %d bytes, %d records, ids %d, ok %d, null %d, tags %d/%d",
  n, #doc, #records, ids, oks, nulls, tagcount, taglen))
print(string.format("price %.2f neg %d exp %d xy %.1f", price, neg, exp, xy))
