-- app: an assembler and stack virtual machine with labels, calls and a disassembler

local OPS = {
  push = 1, pop = 0, add = 0, sub = 0, mul = 0, div = 0, mod = 0,
  dup = 0, swap = 0, over = 0, jmp = 1, jz = 1, jnz = 1, call = 1, ret = 0,
  load = 1, store = 1, print = 0, halt = 0, lt = 0, eq = 0, neg = 0,
}

local function assemble(src)
  local code, labels, fixups = {}, {}, {}
  local lineno = 0
  for line in (src .. "\n"):gmatch("(.-)\n") do
    lineno = lineno + 1
    line = line:gsub(";.*$", ""):match("^%s*(.-)%s*$")
    if line ~= "" then
      local label, rest = line:match("^([%w_]+):%s*(.*)$")
      if label then
        if labels[label] then error(string.format("line %d: duplicate label '%s'", lineno, label), 0) end
        labels[label] = #code + 1
        line = rest
      end
      if line ~= "" then
        local op, arg = line:match("^(%a+)%s*(.*)$")
        if not op or OPS[op] == nil then error(string.format("line %d: unknown instruction '%s'", lineno, line), 0) end
        local instr = {op = op, line = lineno}
        if OPS[op] == 1 then
          if arg == "" then error(string.format("line %d: '%s' needs an argument", lineno, op), 0) end
          local n = math.tointeger(tonumber(arg))
          if n then instr.arg = n else instr.label = arg; fixups[#fixups + 1] = instr end
        elseif arg ~= "" then
          error(string.format("line %d: '%s' takes no argument", lineno, op), 0)
        end
        code[#code + 1] = instr
      end
    end
  end
  for _, instr in ipairs(fixups) do
    local target = labels[instr.label]
    if not target then error(string.format("line %d: undefined label '%s'", instr.line, instr.label), 0) end
    instr.arg = target
  end
  return code
end

local function run(code, max_steps)
  local stack, sp, frames, mem, out = {}, 0, {}, {}, {}
  local pc, steps = 1, 0
  local function push(v) sp = sp + 1; stack[sp] = v end
  local function pop()
    if sp == 0 then error(string.format("stack underflow at %d", pc), 0) end
    local v = stack[sp]; stack[sp] = nil; sp = sp - 1; return v
  end
  while true do
    local ins = code[pc]
    if not ins then error("pc out of range: " .. pc, 0) end
    steps = steps + 1
    if steps > max_steps then error("step limit exceeded", 0) end
    local op = ins.op
    pc = pc + 1
    if op == "push" then push(ins.arg)
    elseif op == "pop" then pop()
    elseif op == "add" then local b, a = pop(), pop(); push(a + b)
    elseif op == "sub" then local b, a = pop(), pop(); push(a - b)
    elseif op == "mul" then local b, a = pop(), pop(); push(a * b)
    elseif op == "div" then
      local b, a = pop(), pop()
      if b == 0 then error(string.format("division by zero at line %d", ins.line), 0) end
      push(a // b)
    elseif op == "mod" then local b, a = pop(), pop(); push(a % b)
    elseif op == "neg" then push(-pop())
    elseif op == "lt" then local b, a = pop(), pop(); push(a < b and 1 or 0)
    elseif op == "eq" then local b, a = pop(), pop(); push(a == b and 1 or 0)
    elseif op == "dup" then local a = pop(); push(a); push(a)
    elseif op == "swap" then local b, a = pop(), pop(); push(b); push(a)
    elseif op == "over" then local b, a = pop(), pop(); push(a); push(b); push(a)
    elseif op == "jmp" then pc = ins.arg
    elseif op == "jz" then if pop() == 0 then pc = ins.arg end
    elseif op == "jnz" then if pop() ~= 0 then pc = ins.arg end
    elseif op == "call" then frames[#frames + 1] = pc; pc = ins.arg
    elseif op == "ret" then
      pc = table.remove(frames)
      if not pc then error("return with empty call stack", 0) end
    elseif op == "load" then push(mem[ins.arg] or 0)
    elseif op == "store" then mem[ins.arg] = pop()
    elseif op == "print" then out[#out + 1] = tostring(pop())
    elseif op == "halt" then return table.concat(out, " "), steps, sp
    end
  end
end

local function disassemble(code)
  local lines = {}
  for i, ins in ipairs(code) do
    lines[#lines + 1] = string.format("%03d  %-6s%s", i, ins.op, ins.arg and (" " .. ins.arg) or "")
  end
  return table.concat(lines, "\n")
end

local factorial = [[
; iterative factorial of 10, result printed
        push 1
        store 0        ; acc = 1
        push 10
        store 1        ; n = 10
loop:   load 1
        jz done
        load 0
        load 1
        mul
        store 0
        load 1
        push 1
        sub
        store 1
        jmp loop
done:   load 0
        print
        halt
]]
local code = assemble(factorial)
print(disassemble(code))
print(run(code, 10000))

local fib = [[
; prints the first 15 Fibonacci numbers using a subroutine
        push 0
        store 0
        push 1
        store 1
        push 15
        store 2
again:  load 2
        jz end
        call step
        load 2
        push 1
        sub
        store 2
        jmp again
end:    halt
step:   load 0
        print
        load 0
        load 1
        dup
        store 0
        add
        store 1
        ret
]]
print(run(assemble(fib), 10000))

local gcd = [[
        push 1071
        push 462
top:    dup
        jz fin
        swap
        over
        mod
        jmp top
fin:    pop
        print
        halt
]]
print(run(assemble(gcd), 1000))

local errors = {
  "push",
  "bogus 1",
  "jmp nowhere",
  "add 5",
  "x: push 1\nx: push 2",
}
for _, src in ipairs(errors) do print(pcall(assemble, src)) end
print(pcall(run, assemble("push 1\npush 0\ndiv\nhalt"), 100))
print(pcall(run, assemble("pop\nhalt"), 100))
print(pcall(run, assemble("l: jmp l"), 50))
print(pcall(run, assemble("ret"), 10))
print(pcall(run, assemble("push 3\nneg\nprint\npush 2\npush 5\nlt\nprint\npush 4\npush 4\neq\nprint\nhalt"), 100))
