-- tables: multiple results in constructors expand only in last position
local function three() return 1, 2, 3 end
local function none() end
local a = {three()}
local b = {three(), three()}
local c = {three(), "x"}
local d = {(three())}
local e = {none()}
local f = {none(), 1}
print(#a, #b, #c, #d, #e, f[1], f[2])
print(table.concat(b, ","))
local function pack(...) return {...} end
print(#pack(three()), #pack(three(), three()))
local g = {x = three(), three()}
print(g.x, #g)
