-- helper module (not a program): utility functions required by other modules
local util = {}
function util.double(x) return x * 2 end
function util.join(t, sep) return table.concat(t, sep or ",") end
return util
