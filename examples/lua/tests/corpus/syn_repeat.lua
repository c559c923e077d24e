-- syntax: repeat ... until, locals visible in the condition
local i = 0
repeat i = i + 1 until i >= 3
print(i)
local n = 0
repeat
  local done = n >= 4
  n = n + 1
until done
print(n)
local j = 10
repeat j = j + 1 until true
print(j)
local sum = 0
repeat
  sum = sum + 1
  if sum == 7 then break end
until false
print(sum)
