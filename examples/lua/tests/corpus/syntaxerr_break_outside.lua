-- syntax error: break outside a loop
local x = 1
if x then
  break
end
