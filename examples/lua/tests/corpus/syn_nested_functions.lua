-- syntax: deeply nested blocks and functions
local function outer(a)
  local function middle(b)
    local function inner(c)
      local r = 0
      for i = 1, 3 do
        if i % 2 == 1 then
          while true do
            repeat
              r = r + a + b + c + i
            until true
            break
          end
        end
      end
      return r
    end
    return inner(b * 2)
  end
  return middle(a + 1)
end
print(outer(1), outer(5))
local depth = 0
local function nest(n)
  if n == 0 then return function() return "bottom" end end
  return function() depth = depth + 1; return nest(n - 1)() end
end
print(nest(5)(), depth)
