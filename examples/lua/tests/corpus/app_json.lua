-- app: a JSON encoder (sorted keys) and decoder with error reporting

local json = {}

local escapes = {['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t'}

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 then return false end
    n = n + 1
  end
  for i = 1, n do if t[i] == nil then return false end end
  return true, n
end

local encode_value

local function encode_table(t, indent, level, seen)
  if seen[t] then error("circular reference") end
  seen[t] = true
  local arr, n = is_array(t)
  local parts = {}
  local nl, pad, padin = "", "", ""
  if indent then
    nl = "\n"
    pad = string.rep(indent, level)
    padin = string.rep(indent, level + 1)
  end
  local out
  if arr and n > 0 then
    for i = 1, n do parts[i] = padin .. encode_value(t[i], indent, level + 1, seen) end
    out = "[" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "]"
  elseif arr then
    out = "[]"
  else
    local keys = {}
    for k in pairs(t) do
      if type(k) ~= "string" then error("object keys must be strings, got " .. type(k)) end
      keys[#keys + 1] = k
    end
    table.sort(keys)
    for i, k in ipairs(keys) do
      parts[i] = padin .. encode_string(k) .. ":" .. (indent and " " or "") .. encode_value(t[k], indent, level + 1, seen)
    end
    out = "{" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "}"
  end
  seen[t] = nil
  return out
end

function encode_value(v, indent, level, seen)
  local tv = type(v)
  if v == nil or v == json.null then return "null"
  elseif tv == "boolean" then return tostring(v)
  elseif tv == "number" then
    if v ~= v or v == math.huge or v == -math.huge then error("cannot encode " .. tostring(v)) end
    if math.type(v) == "integer" then return tostring(v) end
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
    return string.format("%.14g", v)
  elseif tv == "string" then return encode_string(v)
  elseif tv == "table" then return encode_table(v, indent, level, seen)
  end
  error("cannot encode value of type " .. tv)
end

json.null = setmetatable({}, {__tostring = function() return "null" end})

function json.encode(v, indent) return encode_value(v, indent, 0, {}) end

-- decoder ------------------------------------------------------------------
local function decode_error(s, pos, msg)
  local line, col = 1, 1
  for i = 1, pos - 1 do
    if s:sub(i, i) == "\n" then line = line + 1; col = 1 else col = col + 1 end
  end
  error(string.format("%s at line %d col %d", msg, line, col), 0)
end

local function skip_ws(s, pos) return s:find("[^ \t\r\n]", pos) or #s + 1 end

local decode_at

local function decode_string(s, pos)
  local buf = {}
  local i = pos + 1
  while true do
    local c = s:sub(i, i)
    if c == "" then decode_error(s, pos, "unterminated string") end
    if c == '"' then return table.concat(buf), i + 1 end
    if c == "\\" then
      local e = s:sub(i + 1, i + 1)
      local map = {b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/"}
      if map[e] then buf[#buf + 1] = map[e]; i = i + 2
      elseif e == "u" then
        local hex = s:match("^%x%x%x%x", i + 2)
        if not hex then decode_error(s, i, "bad unicode escape") end
        local code = tonumber(hex, 16)
        if code < 128 then buf[#buf + 1] = string.char(code)
        elseif code < 2048 then buf[#buf + 1] = string.char(192 | (code >> 6), 128 | (code & 63))
        else buf[#buf + 1] = string.char(224 | (code >> 12), 128 | ((code >> 6) & 63), 128 | (code & 63)) end
        i = i + 6
      else decode_error(s, i, "bad escape") end
    else
      buf[#buf + 1] = c
      i = i + 1
    end
  end
end

function decode_at(s, pos)
  pos = skip_ws(s, pos)
  local c = s:sub(pos, pos)
  if c == "{" then
    local obj = {}
    pos = skip_ws(s, pos + 1)
    if s:sub(pos, pos) == "}" then return obj, pos + 1 end
    while true do
      pos = skip_ws(s, pos)
      if s:sub(pos, pos) ~= '"' then decode_error(s, pos, "expected string key") end
      local k
      k, pos = decode_string(s, pos)
      pos = skip_ws(s, pos)
      if s:sub(pos, pos) ~= ":" then decode_error(s, pos, "expected ':'") end
      obj[k], pos = decode_at(s, pos + 1)
      pos = skip_ws(s, pos)
      local d = s:sub(pos, pos)
      if d == "}" then return obj, pos + 1 end
      if d ~= "," then decode_error(s, pos, "expected ',' or '}'") end
      pos = pos + 1
    end
  elseif c == "[" then
    local arr = {}
    pos = skip_ws(s, pos + 1)
    if s:sub(pos, pos) == "]" then return arr, pos + 1 end
    while true do
      arr[#arr + 1], pos = decode_at(s, pos)
      pos = skip_ws(s, pos)
      local d = s:sub(pos, pos)
      if d == "]" then return arr, pos + 1 end
      if d ~= "," then decode_error(s, pos, "expected ',' or ']'") end
      pos = pos + 1
    end
  elseif c == '"' then
    return decode_string(s, pos)
  elseif s:find("^true", pos) then return true, pos + 4
  elseif s:find("^false", pos) then return false, pos + 5
  elseif s:find("^null", pos) then return json.null, pos + 4
  else
    local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    if num and #num > 0 then return math.tointeger(tonumber(num)) or tonumber(num), pos + #num end
    decode_error(s, pos, "unexpected character '" .. c .. "'")
  end
end

function json.decode(s)
  local v, pos = decode_at(s, 1)
  pos = skip_ws(s, pos)
  if pos <= #s then decode_error(s, pos, "trailing garbage") end
  return v
end

-- tests ----------------------------------------------------------------------
local doc = {
  name = "majit", version = 5.4, tags = {"jit", "lua", "rust"}, active = true,
  nested = {depth = {deeper = {1, 2, {x = "y"}}}, empty_obj = setmetatable({}, {}), empty_arr = {}},
  text = 'quote " backslash \\ newline \n tab \t bell \a',
  count = 42, ratio = 0.125, big = 1e20, neg = -7, nothing = json.null,
}
local compact = json.encode(doc)
print(compact)
print(json.encode({1, 2, {3, {4}}, {a = {b = {}}}}, "  "))
local back = json.decode(compact)
print(back.name, back.version, back.tags[3], back.active, back.nested.depth.deeper[3].x)
print(back.text == doc.text, back.count, math.type(back.count), back.ratio, back.big, back.nothing == json.null)
print(json.encode(back) == compact)
local inputs = {
  '{"a": [1, 2, 3], "b": {"c": null}}',
  '  [ true , false , null , -1.5e2 , 0 , "\\u0041\\u00e9\\u20ac" ]  ',
  '"just a string"',
  '{"a": 1,}',
  '[1 2]',
  '{"key" 1}',
  '"unterminated',
  '[1, 2] extra',
  '{\n  "x": @\n}',
}
for _, src in ipairs(inputs) do
  local ok, v = pcall(json.decode, src)
  if ok then print("ok", json.encode(v)) else print("error", v) end
end
print(pcall(json.encode, {[1] = "a", [3] = "c"}))
local cyc = {}
cyc.self = cyc
print(pcall(json.encode, cyc))
print(pcall(json.encode, {f = print}))
print(pcall(json.encode, 0 / 0))
