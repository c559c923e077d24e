-- unsupported: coroutines (lua5.4 runs this; our implementation has no coroutine library)
print("start")
local co = coroutine.create(function(a)
  local b = coroutine.yield(a + 1)
  return b * 2
end)
print(coroutine.resume(co, 1))
print(coroutine.resume(co, 10))
print(coroutine.status(co))
