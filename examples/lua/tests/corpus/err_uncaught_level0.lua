-- errors: error(msg, 0) uncaught: no position prefix
io.write("partial output without newline")
error("plain message", 0)
