-- library: package.loaded holds the standard libraries and preset modules
print(package.loaded.string == string, package.loaded.table == table, package.loaded.math == math)
print(package.loaded._G == _G, package.loaded.io == io, package.loaded.os == os)
package.loaded["virtual.mod"] = {answer = 42}
print(require("virtual.mod").answer)
package.loaded.flag = false
print(pcall(require, "flag") and "loaded false" or "searched")
print(type(package.path), type(package.loaded))
