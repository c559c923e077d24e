-- app: tokenizer + recursive-descent calculator with variables, functions and errors

local Lexer = {}
Lexer.__index = Lexer

function Lexer.new(src)
  return setmetatable({src = src, pos = 1, tokens = {}}, Lexer)
end

function Lexer:error(msg) error({pos = self.pos, msg = msg}) end

function Lexer:tokenize()
  local src, toks = self.src, self.tokens
  while true do
    local s, e = src:find("^%s+", self.pos)
    if s then self.pos = e + 1 end
    if self.pos > #src then break end
    local c = src:sub(self.pos, self.pos)
    local num = src:match("^%d+%.?%d*", self.pos) or src:match("^%.%d+", self.pos)
    if num then
      local exp = src:match("^[eE][-+]?%d+", self.pos + #num)
      if exp then num = num .. exp end
      toks[#toks + 1] = {kind = "num", value = tonumber(num), pos = self.pos}
      self.pos = self.pos + #num
    elseif c:match("[%a_]") then
      local id = src:match("^[%a_][%w_]*", self.pos)
      toks[#toks + 1] = {kind = "id", value = id, pos = self.pos}
      self.pos = self.pos + #id
    elseif c:match("[-+*/%%^(),=]") then
      toks[#toks + 1] = {kind = c, pos = self.pos}
      self.pos = self.pos + 1
    else
      self:error("unexpected character '" .. c .. "'")
    end
  end
  toks[#toks + 1] = {kind = "eof", pos = self.pos}
  return toks
end

local Parser = {}
Parser.__index = Parser

function Parser.new(tokens, env)
  return setmetatable({toks = tokens, i = 1, env = env}, Parser)
end

function Parser:peek() return self.toks[self.i] end
function Parser:next() local t = self.toks[self.i]; self.i = self.i + 1; return t end
function Parser:expect(kind)
  local t = self:next()
  if t.kind ~= kind then error({pos = t.pos, msg = "expected '" .. kind .. "' but got '" .. t.kind .. "'"}) end
  return t
end

local functions = {
  sqrt = function(x) return math.sqrt(x) end,
  abs = math.abs,
  max = math.max,
  min = math.min,
  floor = math.floor,
  hyp = function(a, b) return math.sqrt(a * a + b * b) end,
}

-- statement := id '=' expr | expr
function Parser:statement()
  local t, t2 = self.toks[self.i], self.toks[self.i + 1]
  if t.kind == "id" and t2.kind == "=" then
    self.i = self.i + 2
    local v = self:expr()
    self.env[t.value] = v
    return v
  end
  return self:expr()
end

-- expr := term (('+'|'-') term)*
function Parser:expr()
  local v = self:term()
  while true do
    local k = self:peek().kind
    if k == "+" then self:next(); v = v + self:term()
    elseif k == "-" then self:next(); v = v - self:term()
    else return v end
  end
end

-- term := unary (('*'|'/'|'%') unary)*
function Parser:term()
  local v = self:unary()
  while true do
    local t = self:peek()
    if t.kind == "*" then self:next(); v = v * self:unary()
    elseif t.kind == "/" then
      self:next()
      local d = self:unary()
      if d == 0 then error({pos = t.pos, msg = "division by zero"}) end
      v = v / d
    elseif t.kind == "%" then self:next(); v = v % self:unary()
    else return v end
  end
end

-- unary := '-' unary | power
function Parser:unary()
  if self:peek().kind == "-" then self:next(); return -self:unary() end
  return self:power()
end

-- power := atom ('^' unary)?   (right associative)
function Parser:power()
  local base = self:atom()
  if self:peek().kind == "^" then self:next(); return base ^ self:unary() end
  return base
end

function Parser:atom()
  local t = self:next()
  if t.kind == "num" then return t.value end
  if t.kind == "(" then
    local v = self:expr()
    self:expect(")")
    return v
  end
  if t.kind == "id" then
    if self:peek().kind == "(" then
      self:next()
      local f = functions[t.value]
      if not f then error({pos = t.pos, msg = "unknown function '" .. t.value .. "'"}) end
      local args = {}
      if self:peek().kind ~= ")" then
        args[#args + 1] = self:expr()
        while self:peek().kind == "," do self:next(); args[#args + 1] = self:expr() end
      end
      self:expect(")")
      return f(table.unpack(args))
    end
    local v = self.env[t.value]
    if v == nil then error({pos = t.pos, msg = "undefined variable '" .. t.value .. "'"}) end
    return v
  end
  error({pos = t.pos, msg = "unexpected '" .. t.kind .. "'"})
end

local function evaluate(src, env)
  local ok, result = pcall(function()
    local toks = Lexer.new(src):tokenize()
    local p = Parser.new(toks, env)
    local v = p:statement()
    p:expect("eof")
    return v
  end)
  if ok then return true, result end
  if type(result) == "table" then
    return false, string.format("error at %d: %s", result.pos, result.msg)
  end
  return false, result
end

local env = {pi = math.pi}
local lines = {
  "1 + 2 * 3",
  "(1 + 2) * 3",
  "2 ^ 3 ^ 2",
  "-2 ^ 2",
  "10 / 4",
  "10 % 4 + 7 % -3",
  "x = 5",
  "y = x * 2 + 1",
  "x * y - 3",
  "sqrt(16) + abs(-3)",
  "max(1, 7, 3) - min(4, 2)",
  "hyp(3, 4)",
  "floor(pi * 100) / 100",
  "1.5e2 + .5",
  "1 / 0",
  "2 * (3 + 4",
  "unknown + 1",
  "foo(1)",
  "3 $ 4",
  "1 2",
  "",
  "((((1))))",
  "z = x = 3",
}
for _, line in ipairs(lines) do
  local ok, v = evaluate(line, env)
  if ok then
    print(string.format("%-24s => %s", line, tostring(v)))
  else
    print(string.format("%-24s !! %s", line, v))
  end
end
print("x =", env.x, "y =", env.y)
