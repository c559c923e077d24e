-- strings: embedded zero bytes are ordinary characters
local s = "one\0two\0three"
print(#s, s:find("\0"), s:find("\0", 5), s:find("two", 1, true))
local parts = {}
for p in s:gmatch("[^\0]+") do parts[#parts + 1] = p end
print(#parts, table.concat(parts, "|"))
print((s:gsub("\0", "/")))
print(s:upper():byte(4), ("\0a\0"):rep(2):len(), ("a\0"):reverse():byte(1, 2))
print(s:sub(4, 4) == "\0", ("%q"):format("\0") == '"\\0"')
print(("x\0y"):match("x(.)y"):byte(), ("\0"):byte())
