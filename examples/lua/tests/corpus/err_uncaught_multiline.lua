-- errors: only the first line of a multi-line uncaught error is compared
error("first line\nsecond line")
