-- app: a Brainfuck interpreter (and a compiler to Lua via load) running small programs

local function parse(src)
  local code, jumps, stack = {}, {}, {}
  for c in src:gmatch("[%+%-<>%.,%[%]]") do
    code[#code + 1] = c
    if c == "[" then
      stack[#stack + 1] = #code
    elseif c == "]" then
      local open = table.remove(stack)
      if not open then error("unmatched ']' at instruction " .. #code, 0) end
      jumps[open], jumps[#code] = #code, open
    end
  end
  if #stack > 0 then error("unmatched '[' at instruction " .. stack[#stack], 0) end
  return code, jumps
end

local function interpret(src, input)
  local code, jumps = parse(src)
  local tape, ptr, pc, out, inpos = {}, 1, 1, {}, 1
  local steps = 0
  while pc <= #code do
    local c = code[pc]
    steps = steps + 1
    if c == "+" then tape[ptr] = ((tape[ptr] or 0) + 1) % 256
    elseif c == "-" then tape[ptr] = ((tape[ptr] or 0) - 1) % 256
    elseif c == ">" then ptr = ptr + 1
    elseif c == "<" then ptr = ptr - 1
    elseif c == "." then out[#out + 1] = string.char(tape[ptr] or 0)
    elseif c == "," then
      local b = input and input:byte(inpos)
      tape[ptr] = b or 0
      inpos = inpos + 1
    elseif c == "[" then
      if (tape[ptr] or 0) == 0 then pc = jumps[pc] end
    elseif c == "]" then
      if (tape[ptr] or 0) ~= 0 then pc = jumps[pc] end
    end
    pc = pc + 1
  end
  return table.concat(out), steps
end

-- compile runs of instructions into Lua source and load it
local function compile(src)
  parse(src) -- validates brackets
  local lines = {"local input = ...", "local t, p, out, ip = setmetatable({}, {__index = function() return 0 end}), 1, {}, 1"}
  local i = 1
  local ops = {}
  for c in src:gmatch("[%+%-<>%.,%[%]]") do ops[#ops + 1] = c end
  local indent = ""
  while i <= #ops do
    local c = ops[i]
    if c == "+" or c == "-" then
      local n = 0
      while ops[i] == "+" or ops[i] == "-" do n = n + (ops[i] == "+" and 1 or -1); i = i + 1 end
      lines[#lines + 1] = indent .. string.format("t[p] = (t[p] + %d) %% 256", n)
    elseif c == ">" or c == "<" then
      local n = 0
      while ops[i] == ">" or ops[i] == "<" do n = n + (ops[i] == ">" and 1 or -1); i = i + 1 end
      lines[#lines + 1] = indent .. string.format("p = p + %d", n)
    else
      if c == "." then lines[#lines + 1] = indent .. "out[#out + 1] = string.char(t[p])"
      elseif c == "," then lines[#lines + 1] = indent .. "t[p] = input:byte(ip) or 0; ip = ip + 1"
      elseif c == "[" then lines[#lines + 1] = indent .. "while t[p] ~= 0 do"; indent = indent .. "  "
      elseif c == "]" then indent = indent:sub(3); lines[#lines + 1] = indent .. "end" end
      i = i + 1
    end
  end
  lines[#lines + 1] = "return table.concat(out)"
  local source = table.concat(lines, "\n")
  return assert(load(source, "=bf")), #lines
end

local hello = [[
++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.
]]
local out, steps = interpret(hello)
io.write(out)
print("steps:", steps)

-- add two digits read from input: reads "3" and "4", prints "7"
local add = ",>,[<+>-]<------------------------------------------------."
print(interpret(add, "34"))

-- reverse the input (reads until 0)
local reverse = ">,[>,]<[.<]"
print(interpret(reverse, "stressed"))

-- uppercase via subtracting 32 from each input character
local upper = ",[>++++[<-------->-]<.,]"
print(interpret(upper, "brainfuck"))

-- print the squares 0..100 (multi-line output), a classic program
local squares = [==[
++++[>+++++<-]>[<+++++>-]+<+[>[>+>+<<-]++>>[<<+>>-]>>>[-]++>[-]+>>>+[[-]++++++>>>]<<<[[<++++++++<++>>-]+<.<[>----<-]<]
<<[>>>>>[>>>[-]+++++++++<[>-<-]+++++++++>[-[<->-]+[<<<]]<[>+<-]>]<<-]<<-]
]==]
local sq = interpret(squares)
local lines = {}
for l in sq:gmatch("[^\n]+") do lines[#lines + 1] = l end
print("squares:", #lines, lines[1], lines[2], lines[#lines])

-- compiled versions give the same results
local f, nlines = compile(hello)
io.write(f())
print("compiled lines:", nlines)
print(compile(add)("25"), compile(reverse)("lua"), compile(upper)("jit") == "JIT")
local sqf = compile(squares)
print(sqf() == sq)

-- errors
print(pcall(interpret, "[[]"))
print(pcall(interpret, "[]]"))
print(pcall(compile, "+]"))
