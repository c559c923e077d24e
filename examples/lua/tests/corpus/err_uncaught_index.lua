-- errors: uncaught "attempt to index" inside a function
local config = {}
local function get_port(c)
  return c.server.port
end
print("port:", pcall(get_port, {server = {port = 8080}}))
print(get_port(config))
