-- syntax: if / elseif / else chains and truthiness
local function classify(n)
  if n < 0 then
    return "negative"
  elseif n == 0 then
    return "zero"
  elseif n < 10 then
    return "small"
  else
    return "large"
  end
end
for _, v in ipairs({-5, 0, 3, 42}) do print(v, classify(v)) end
local vals = {false, 0, "", "x", true}
for i = 1, 5 do
  if vals[i] then print(i, "truthy") else print(i, "falsy") end
end
if nil then print("nil is truthy?") else print("nil is falsy") end
if 1 then if false then print("no") else print("nested else") end end
