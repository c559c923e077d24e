-- errors: an uncaught error ends the script with status 1
print("before")
local function fail() error("boom") end
fail()
print("never printed")
