-- functions: mutual recursion through forward-declared locals and globals
local is_even, is_odd
function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(10), is_odd(7), is_even(7), is_odd(100))
function g_ping(n, acc) if n == 0 then return acc end return g_pong(n - 1, acc .. "i") end
function g_pong(n, acc) if n == 0 then return acc end return g_ping(n - 1, acc .. "o") end
print(g_ping(6, ""))
local parse_expr, parse_term
function parse_term(s, i)
  if s:sub(i, i) == "(" then
    local v, j = parse_expr(s, i + 1)
    return v, j + 1
  end
  return tonumber(s:sub(i, i)), i + 1
end
function parse_expr(s, i)
  local v, j = parse_term(s, i)
  while s:sub(j, j) == "+" do
    local w
    w, j = parse_term(s, j + 1)
    v = v + w
  end
  return v, j
end
print(parse_expr("1+(2+3)+(4+(5+6))", 1))
