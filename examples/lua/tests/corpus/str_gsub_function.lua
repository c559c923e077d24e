-- strings: gsub with a function: called with captures; false/nil keeps the match
print(("hello world"):gsub("%w+", string.upper))
print(("1 2 3 4"):gsub("%d", function(d) return d * d end))
print(("a1b2"):gsub("(%a)(%d)", function(a, d) return d .. a end))
print(("keep this"):gsub("%w+", function(w) if w == "this" then return "that" end end))
print(("abc"):gsub("b", function() return false end))
local seen = {}
print(("xyz"):gsub("()(.)", function(pos, c) seen[#seen + 1] = pos .. c; return "" end))
print(table.concat(seen, ","))
print(pcall(string.gsub, "a", "a", function() return {} end))
local count = 0
print(("aaaa"):gsub("a", function() count = count + 1; return count end, 3))
