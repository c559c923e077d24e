-- syntax errors reported by load(): nil plus a message
local cases = {
  "x = = 1",
  "if true then",
  "local s = 'unclosed",
  "return 1 +",
  "x = 3x",
  "for i = 1 do end",
  "local function() end",
  "return )",
  "f(",
  "a.b:c = 1",
  "local t = {1, 2",
  "x = }",
  "return 'a' .. ",
  "local x <const> = 1; x = 2",
  "break",
  "return \"\\300\"",
  "return \"\\xZZ\"",
  "return \"\\u{110000000}\"",
  "x = [==[ abc ]=]",
  "return 0x",
  "return 1e+",
  "x = #",
  "local a.b = 1",
  "return function(a, ...) return ... end, ...",
}
for i, src in ipairs(cases) do
  local f, err = load(src)
  print(i, f and "loaded" or err)
end
