-- functions: non-tail recursion to a moderate depth
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(5000))
local function sum_list(node) if not node then return 0 end return node.v + sum_list(node.next) end
local list = nil
for i = 1, 5000 do list = {v = i, next = list} end
print(sum_list(list))
local function build(n) if n == 0 then return {} end return {build(n - 1)} end
local t = build(2000)
local d = 0
while t[1] do t = t[1]; d = d + 1 end
print(d)
