-- helper module (not a program): a counter module loaded by lib_require*.lua
local M = {}
local count = 0
M.loads = (M.loads or 0) + 1
function M.inc() count = count + 1 return count end
function M.get() return count end
M.name = ...
load_count_mod_counter = (load_count_mod_counter or 0) + 1
return M
