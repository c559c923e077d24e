-- library: require of a missing module fails with a message listing the search
package.path = "./?.lua"
local ok, msg = pcall(require, "no_such_module_here")
print(ok, (msg:match("^[^\n]*")))
print(msg:find("no file './no_such_module_here.lua'", 1, true) ~= nil)
print(pcall(require))
