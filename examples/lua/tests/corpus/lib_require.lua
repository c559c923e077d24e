-- library: require loads a module file once and caches it in package.loaded
package.path = "./?.lua;" .. package.path
local c = require("mod_counter")
print(type(c), c.name, c.inc(), c.inc())
local again = require("mod_counter")
print(again == c, again.get(), load_count_mod_counter)
print(package.loaded.mod_counter == c)
local util, where = require("mod_util")
print(util.join({"a", "b"}), where)
local shapes = require("mod_shapes")
print(shapes.Rect.new(3, 4):area(), shapes.uses_helper)
print(require("mod_noreturn"), noreturn_module_ran, package.loaded.mod_noreturn)
package.loaded.mod_counter = nil
local fresh = require("mod_counter")
print(fresh == c, load_count_mod_counter, fresh.get())
