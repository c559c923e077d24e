-- library: os.exit(true) exits with success
print("exiting with true")
os.exit(true)
error("not reached")
