-- unsupported: goto and labels (lua5.4 runs this; our implementation rejects it)
for j = 1, 3 do
  if j == 2 then goto continue end
  print("j", j)
  ::continue::
end
local i = 1
::top::
if i <= 3 then
  print("iteration", i)
  i = i + 1
  goto top
end
