-- errors: error() levels choose which position is prefixed
local function lvl1() error("level one") end
local function lvl2() error("level two", 2) end
local function lvl0() error("level zero", 0) end
local function caller() lvl2() end
print(pcall(lvl1))
print(pcall(caller))
print(pcall(lvl0))
print(pcall(error, "direct"))
print(pcall(error, "direct2", 2))
local function deep3() error("three up", 3) end
local function deep2() deep3() end
local function deep1() deep2() end
print(pcall(deep1))
print(pcall(function() error("multi\nline") end))
