-- library: os.exit(false) exits with failure status, no error message
io.write("no newline at the end")
os.exit(false)
