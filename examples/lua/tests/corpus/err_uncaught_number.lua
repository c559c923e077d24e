-- errors: error(42) uncaught: numbers are converted to text
error(42)
