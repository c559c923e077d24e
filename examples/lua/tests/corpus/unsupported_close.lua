-- unsupported: <close> variables (lua5.4 runs this; our implementation rejects it)
do
  local res <close> = setmetatable({}, {__close = function() print("closed") end})
  print("using resource")
end
print("after block")
