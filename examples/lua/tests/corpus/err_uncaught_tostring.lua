-- errors: an uncaught error value with __tostring is shown through it
error(setmetatable({}, {__tostring = function() return "custom error object" end}))
