-- errors: error() with no value, uncaught
error()
