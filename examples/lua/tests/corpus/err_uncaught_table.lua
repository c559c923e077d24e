-- errors: an uncaught table error value without __tostring
print("about to fail")
error({code = 1})
