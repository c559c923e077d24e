-- functions: proper tail calls in methods, to builtins, mutual recursion 3e4 deep (past MAX_DEPTH 20000), error levels
local even, odd
function even(n) if n == 0 then return "even" end return odd(n - 1) end
function odd(n) if n == 0 then return "odd" end return even(n - 1) end
print(even(30000), odd(30001))
local Counter = {}
Counter.__index = Counter
function Counter:down(n) if n == 0 then return self.name end return self:down(n - 1) end
print(setmetatable({name = "counter"}, Counter):down(30000))
local function to_builtin(...) return select("#", ...) end
print(to_builtin(1, nil, 3))
local function to_rep(s, n) return string.rep(s, n) end
print(to_rep("ab", 3))
local function bad_rep() return string.rep() end
print(pcall(bad_rep))
local function many(n) local t = {} for i = 1, n do t[i] = i end return table.unpack(t) end
local function pass(n) return many(n) end
print(select("#", pass(500)))
local function level2() error("at level 2", 2) end
local function tail_level() return level2() end
local function caller() local r = tail_level() return r end
print(pcall(caller))
local function tail_pcall(f) return pcall(f) end
print(tail_pcall(function() error("in pcall", 0) end))
local function loop_sum(n, acc) if n == 0 then return acc end return loop_sum(n - 1, acc + n) end
print(loop_sum(30000, 0))
local function tail_nil(x) return x() end
print(pcall(tail_nil, nil))
local callable = setmetatable({}, {__call = function(_, n) return "called " .. n end})
local function tail_callable(n) return callable(n) end
print(tail_callable(7))
local function three() return 1, 2, 3 end
local function tail_results() return three() end
print(tail_results())
print((tail_results()))
local function args_shift(a, ...) if a == nil then return ... end return args_shift(...) end
print(args_shift(1, 2, 3, nil, "after", "end"))
for i = 1, 3 do print(i, loop_sum(100 * i, 0), even(i)) end
