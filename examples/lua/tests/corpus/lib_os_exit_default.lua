-- library: os.exit() without arguments exits with success, even inside pcall
print(pcall(function() print("in pcall"); os.exit() end))
print("not reached")
