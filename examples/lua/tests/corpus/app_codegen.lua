-- app: load-based code generation: compiling expression trees and record types to Lua

-- 1. expression AST -> Lua source -> function
local function compile_expr(node)
  local t = node[1]
  if t == "num" then return tostring(node[2])
  elseif t == "var" then return "env." .. node[2]
  elseif t == "neg" then return "(-" .. compile_expr(node[2]) .. ")"
  elseif t == "call" then
    local args = {}
    for i = 3, #node do args[#args + 1] = compile_expr(node[i]) end
    return "math." .. node[2] .. "(" .. table.concat(args, ", ") .. ")"
  elseif t == "if" then
    return "((" .. compile_expr(node[2]) .. ") and (" .. compile_expr(node[3]) .. ") or (" .. compile_expr(node[4]) .. "))"
  else
    return "(" .. compile_expr(node[2]) .. " " .. t .. " " .. compile_expr(node[3]) .. ")"
  end
end

local function build(node)
  local src = "local env = ...\nreturn " .. compile_expr(node)
  local f, err = load(src, "=expr", "t", {math = math})
  if not f then error(err) end
  return f, src
end

local ast = {"+", {"*", {"var", "x"}, {"var", "x"}}, {"-", {"call", "max", {"var", "y"}, {"num", 3}}, {"neg", {"num", 1}}}}
local f, src = build(ast)
print(src:match("return (.*)"))
print(f({x = 4, y = 10}), f({x = 1.5, y = 0}))
local cond = build({"if", {"<", {"var", "a"}, {"var", "b"}}, {"var", "a"}, {"var", "b"}})
print(cond({a = 3, b = 7}), cond({a = 9, b = 2}))

-- 2. generating specialised functions from templates
local function make_accessor(fields)
  local lines = {"return function(rec)"}
  local names = {}
  for i, name in ipairs(fields) do
    lines[#lines + 1] = string.format("  local v%d = rec[%q]", i, name)
    names[#names + 1] = "v" .. i
  end
  lines[#lines + 1] = "  return " .. table.concat(names, ", ")
  lines[#lines + 1] = "end"
  return load(table.concat(lines, "\n"), "=accessor")()
end
local get = make_accessor({"name", "age", "city"})
print(get({name = "Ana", age = 33, city = "Lisbon"}))

-- 3. record "types" with generated constructors and validators
local function define_record(name, spec)
  local buf = {"local name, check = ...", "local R = {}", "R.__index = R", "R.__name = name",
    "function R.new(t)", "  local self = setmetatable({}, R)"}
  for _, field in ipairs(spec) do
    buf[#buf + 1] = string.format("  if type(t.%s) ~= %q then error(%q .. type(t.%s), 2) end",
      field[1], field[2], name .. "." .. field[1] .. ": expected " .. field[2] .. ", got ", field[1])
    buf[#buf + 1] = string.format("  self.%s = t.%s", field[1], field[1])
  end
  buf[#buf + 1] = "  return self"
  buf[#buf + 1] = "end"
  local fields = {}
  for i, field in ipairs(spec) do fields[i] = string.format("%s=\" .. tostring(self.%s) .. \"", field[1], field[1]) end
  buf[#buf + 1] = "R.__tostring = function(self) return \"" .. name .. "{" .. table.concat(fields, ", ") .. "}\" end"
  buf[#buf + 1] = "return R"
  local chunk = table.concat(buf, "\n")
  return assert(load(chunk, "=record:" .. name))(name), select(2, chunk:gsub("\n", ""))
end
local Point, nlines = define_record("Point", {{"x", "number"}, {"y", "number"}, {"label", "string"}})
print("generated lines:", nlines + 1)
local p = Point.new({x = 1, y = 2.5, label = "origin-ish"})
print(p)
print(pcall(Point.new, {x = 1, y = "2", label = "bad"}))

-- 4. unrolled loops: a generated dot product for a fixed size
local function gen_dot(n)
  local terms = {}
  for i = 1, n do terms[i] = string.format("a[%d] * b[%d]", i, i) end
  return load("local a, b = ... return " .. table.concat(terms, " + "))
end
local dot4 = gen_dot(4)
print(dot4({1, 2, 3, 4}, {5, 6, 7, 8}))

-- 5. a tiny DSL: state machine compiled into a function table
local machine = [[
start  a -> s1
start  b -> start
s1     a -> s1
s1     b -> accept
accept a -> s1
accept b -> start
]]
local code = {"local T = {}"}
local states = {}
for from, sym, to in machine:gmatch("(%w+)%s+(%w)%s+%->%s+(%w+)") do
  if not states[from] then states[from] = true; code[#code + 1] = string.format("T[%q] = {}", from) end
  code[#code + 1] = string.format("T[%q][%q] = %q", from, sym, to)
end
code[#code + 1] = [[
return function(input)
  local s = "start"
  for c in input:gmatch(".") do
    s = T[s][c]
    if not s then return false end
  end
  return s == "accept"
end]]
local accepts = load(table.concat(code, "\n"), "=fsm")()
for _, w in ipairs({"ab", "aab", "abb", "babab", "", "abc", "bbbbab"}) do
  io.write(string.format("%q:%s ", w, tostring(accepts(w))))
end
print()

-- 6. load errors in generated code are reported with the chunk name
print(load("return 1 +* 2", "=generated"))
print(pcall(load("local t = nil return t.x", "=generated")))
