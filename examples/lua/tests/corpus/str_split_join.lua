-- strings: common idioms: split, join, trim, startswith
local function split(s, sep)
  local out = {}
  for piece in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = piece end
  return out
end
local parts = split("a,b,,c", ",")
print(#parts, table.concat(parts, "|"))
parts = split("one::two::three", "::")
print(#parts, table.concat(parts, "|"))
local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end
print("[" .. trim("  \t padded \n ") .. "]", "[" .. trim("") .. "]")
local function startswith(s, p) return s:sub(1, #p) == p end
local function endswith(s, p) return p == "" or s:sub(-#p) == p end
print(startswith("hello", "he"), startswith("hello", "lo"), endswith("hello", "lo"), endswith("x", ""))
local csv = "name,age\nann,31\nbob,27\n"
for line in csv:gmatch("[^\n]+") do
  local a, b = line:match("([^,]*),([^,]*)")
  print(a:upper(), b)
end
