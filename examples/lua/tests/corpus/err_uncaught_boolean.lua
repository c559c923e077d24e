-- errors: an uncaught boolean error object
print("before")
error(false)
