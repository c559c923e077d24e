-- app: string buffers with table.concat: a text table renderer, CSV writer/reader, hexdump

local Buffer = {}
Buffer.__index = Buffer
function Buffer.new() return setmetatable({parts = {}, n = 0}, Buffer) end
function Buffer:add(...)
  for i = 1, select("#", ...) do
    self.n = self.n + 1
    self.parts[self.n] = tostring((select(i, ...)))
  end
  return self
end
function Buffer:addf(fmt, ...) return self:add(string.format(fmt, ...)) end
function Buffer:line(...) return self:add(...):add("\n") end
function Buffer:tostring() return table.concat(self.parts, "", 1, self.n) end
Buffer.__tostring = Buffer.tostring
Buffer.__len = function(b) return #b:tostring() end

-- a text table renderer with column alignment
local function render_table(headers, rows, align)
  local widths = {}
  for i, h in ipairs(headers) do widths[i] = #h end
  for _, r in ipairs(rows) do
    for i, v in ipairs(r) do widths[i] = math.max(widths[i], #tostring(v)) end
  end
  local b = Buffer.new()
  local function sep()
    b:add("+")
    for i = 1, #headers do b:add(string.rep("-", widths[i] + 2), "+") end
    b:add("\n")
  end
  local function row(cells)
    b:add("|")
    for i = 1, #headers do
      local v = tostring(cells[i] or "")
      local fmt = (align and align[i] == "r") and ("%" .. widths[i] .. "s") or ("%-" .. widths[i] .. "s")
      b:addf(" " .. fmt .. " |", v)
    end
    b:add("\n")
  end
  sep(); row(headers); sep()
  for _, r in ipairs(rows) do row(r) end
  sep()
  return b:tostring()
end

local rows = {
  {"apple", 3, 0.5},
  {"banana", 12, 0.25},
  {"cherry", 100, 3},
  {"dragonfruit", 1, 4.75},
}
local total = 0
for _, r in ipairs(rows) do total = total + r[2] * r[3] end
rows[#rows + 1] = {"TOTAL", "", string.format("%.2f", total)}
io.write(render_table({"fruit", "qty", "price"}, rows, {"l", "r", "r"}))

-- CSV writer and reader (quoted fields, embedded commas, quotes and newlines)
local function csv_field(v)
  v = tostring(v)
  if v:find('[,"\n]') then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end
local function to_csv(records)
  local b = Buffer.new()
  for _, rec in ipairs(records) do
    local fields = {}
    for i, v in ipairs(rec) do fields[i] = csv_field(v) end
    b:line(table.concat(fields, ","))
  end
  return b:tostring()
end
local function parse_csv(text)
  local records, rec, field, i = {}, {}, {}, 1
  local in_quotes = false
  while i <= #text do
    local c = text:sub(i, i)
    if in_quotes then
      if c == '"' then
        if text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1
        else in_quotes = false end
      else field[#field + 1] = c end
    elseif c == '"' then in_quotes = true
    elseif c == "," then rec[#rec + 1] = table.concat(field); field = {}
    elseif c == "\n" then
      rec[#rec + 1] = table.concat(field); field = {}
      records[#records + 1] = rec; rec = {}
    else field[#field + 1] = c end
    i = i + 1
  end
  return records
end
local data = {
  {"id", "name", "comment"},
  {1, "Smith, John", 'said "hi"'},
  {2, "Multi", "line one\nline two"},
  {3, "plain", ""},
}
local csv = to_csv(data)
io.write(csv)
local back = parse_csv(csv)
print("records:", #back, back[2][2], back[2][3], back[3][3] == "line one\nline two", back[4][3] == "")

-- hexdump of a binary string
local function hexdump(s)
  local b = Buffer.new()
  for off = 0, #s - 1, 16 do
    local chunk = s:sub(off + 1, off + 16)
    b:addf("%08x  ", off)
    for i = 1, 16 do
      if i <= #chunk then b:addf("%02x ", chunk:byte(i)) else b:add("   ") end
      if i == 8 then b:add(" ") end
    end
    b:add(" |", (chunk:gsub("[^%g ]", ".")), "|\n")
  end
  return b:tostring()
end
local bin = {}
for i = 0, 40 do bin[#bin + 1] = string.char((i * 37) % 256) end
io.write(hexdump("Hello, buffers!\0\1\2" .. table.concat(bin)))

-- building a large string incrementally and measuring it
local big = Buffer.new()
for i = 1, 2000 do big:add(i, i % 10 == 0 and "\n" or " ") end
local s = big:tostring()
local line_count = select(2, s:gsub("\n", "\n"))
print("big buffer:", #big, line_count, s:sub(1, 20):gsub("\n", "/"))

-- word wrapping into a buffer
local function wrap(text, width)
  local b, col = Buffer.new(), 0
  for word in text:gmatch("%S+") do
    if col > 0 and col + 1 + #word > width then b:add("\n"); col = 0 end
    if col > 0 then b:add(" "); col = col + 1 end
    b:add(word)
    col = col + #word
  end
  return b:tostring()
end
print(wrap("The quick brown fox jumps over the lazy dog and keeps running far beyond the horizon line", 24))
print(tostring(Buffer.new():add("a", 1, true, nil, 2.5)))
