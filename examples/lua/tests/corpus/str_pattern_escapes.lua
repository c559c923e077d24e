-- strings: escaping magic characters with %
local magic = "^$()%.[]*+-?"
for i = 1, #magic do
  local c = magic:sub(i, i)
  io.write(c, ":", tostring(("a" .. c .. "b"):find("%" .. c)), " ")
end
print()
local function escape(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end
print(escape("1+1=2? (maybe) 100%"))
print(("price: $5.00"):match(escape("$5.00")))
print(("a.b.c"):gsub("%.", "/"), ("50%"):gsub("%%", " percent"))
