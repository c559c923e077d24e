-- The standard library functions written in Lua: those that call Lua
-- functions back (tostring with __tostring, table.sort with a comparator,
-- gsub with a function...), return closures (gmatch, lines), or keep state
-- a builtin cannot hold (the default files, the string metatable,
-- package.loaded). They stand for lua5.4's C functions: the builtins they
-- call report errors at their caller (builtins.rs, `Call::site`), and
-- `raise` raises like luaL_error.
--
-- run.rs runs this chunk with the private builtins (`prim`), the script's
-- main function and the script's arguments; it ends by running the script.

local prim, main = ...
local G = _G
local select, type, error, pcall, rawget, next = select, type, error, pcall, rawget, next
local argerror, raise, rethrow = prim.argerror, prim.raise, prim.rethrow
local typename, metafield = prim.typename, prim.metafield
local concat, pack, unpack = table.concat, table.pack, table.unpack
local find, match, sub = string.find, string.match, string.sub
local stdin, stdout = prim.stdin, prim.stdout
local rawwrite = prim["io.write"]

-- tostring, print ------------------------------------------------------

local rawtostring = prim.tostring

-- luaL_tolstring: `v` as a string, through its __tostring.
local function tostr(v)
  local s, mm = rawtostring(v)
  if s == nil then
    s = mm(v)
    local t = type(s)
    if t == "number" then
      s = s .. ""
    elseif t ~= "string" then
      raise("'__tostring' must return a string")
    end
  end
  return s
end

function tostring(...)
  if select("#", ...) == 0 then rawtostring() end
  return (tostr((...)))
end

local rawprint = prim.print

function print(...)
  if rawprint(...) then return end
  for i = 1, select("#", ...) do
    if i > 1 then rawwrite(stdout, "\t") end
    rawwrite(stdout, tostr((select(i, ...))))
  end
  rawwrite(stdout, "\n")
end

-- metatables, iteration --------------------------------------------------

local strmeta = {__index = string}
local rawgetmetatable = prim.getmetatable

function getmetatable(...)
  local v = ...
  if type(v) == "string" then
    local protected = rawget(strmeta, "__metatable")
    if protected ~= nil then return protected end
    return strmeta
  end
  return rawgetmetatable(...)
end

local function ipairs_step(t, i)
  i = i + 1
  local v = t[i]
  if v ~= nil then return i, v end
end

-- The iterator of a value that cannot be indexed: fails as lua5.4's does.
local function ipairs_fail(t)
  error("attempt to index a " .. type(t) .. " value", 0)
end

function ipairs(...)
  if select("#", ...) == 0 then argerror(1, "ipairs", "value expected") end
  local t = ...
  local tt = type(t)
  if tt == "table" or tt == "string" or tt == "userdata" then return ipairs_step, t, 0 end
  return ipairs_fail, t, 0
end

function pairs(...)
  if select("#", ...) == 0 then argerror(1, "pairs", "value expected") end
  local t = ...
  local mm = metafield(t, "__pairs")
  if mm ~= nil then
    local f, s, c = mm(t)
    return f, s, c
  end
  return next, t, nil
end

-- xpcall ----------------------------------------------------------------

-- lua5.4 calls the handler again on an error in the handler, until the C
-- stack limit (LUAI_MAXCCALLS) gives up.
local function xpcall_result(handler, ok, ...)
  if ok then return true, ... end
  local e = ...
  for _ = 1, 220 do
    local handled, r = pcall(handler, e)
    if handled then return false, r end
    e = r
  end
  return false, "error in error handling"
end

function xpcall(...)
  local f, handler = ...
  if type(handler) ~= "function" then
    local got = select("#", ...) < 2 and "no value" or typename(handler)
    argerror(2, "xpcall", "function expected, got " .. got)
  end
  return xpcall_result(handler, pcall(f, select(3, ...)))
end

-- load, loadfile, dofile -------------------------------------------------

local rawload, rawloadfile = prim.load, prim.loadfile

function load(...)
  local chunk, chunkname = ...
  if type(chunk) ~= "function" then return rawload(G, ...) end
  -- generic_reader: the pieces until nil or "", errors as load's result.
  local parts, n = {}, 0
  while true do
    local ok, piece = pcall(chunk)
    if not ok then return nil, piece end
    if piece == nil or piece == "" then break end
    local t = type(piece)
    if t ~= "string" and t ~= "number" then return nil, "reader function must return a string" end
    n = n + 1
    parts[n] = piece
  end
  if chunkname == nil then chunkname = "=(load)" end
  return rawload(G, concat(parts), chunkname, select(3, ...))
end

function loadfile(...)
  return rawloadfile(G, ...)
end

function dofile(filename)
  local f, e = rawloadfile(G, filename)
  if f == nil then error(e, 0) end
  return f()
end

-- package, require -------------------------------------------------------

local package = package
local loaded = {}
package.loaded = loaded
for _, name in ipairs({"string", "table", "math", "io", "os", "package"}) do
  loaded[name] = G[name]
end
loaded._G = G
local preload = {}
package.preload = preload
package.config = "/\n;\n?\n!\n-\n"

local LUA_DIRS = "/usr/local/share/lua/5.4/?.lua;/usr/local/share/lua/5.4/?/init.lua;"
  .. "/usr/local/lib/lua/5.4/?.lua;/usr/local/lib/lua/5.4/?/init.lua;"
  .. "/usr/share/lua/5.4/?.lua;/usr/share/lua/5.4/?/init.lua;./?.lua;./?/init.lua"
local C_DIRS = "/usr/local/lib/lua/5.4/?.so;/usr/lib/x86_64-linux-gnu/lua/5.4/?.so;"
  .. "/usr/lib/lua/5.4/?.so;/usr/local/lib/lua/5.4/loadall.so;./?.so"

-- setpath: LUA_PATH_5_4 or LUA_PATH, its first ";;" standing for the default.
local function setpath(field, envname, default)
  local path = os.getenv(envname .. "_5_4") or os.getenv(envname)
  if path == nil then
    package[field] = default
    return
  end
  local at = find(path, ";;", 1, true)
  if at == nil then
    package[field] = path
    return
  end
  local prefix, suffix = sub(path, 1, at - 1), sub(path, at + 2)
  if prefix ~= "" then default = prefix .. ";" .. default end
  if suffix ~= "" then default = default .. ";" .. suffix end
  package[field] = default
end
setpath("path", "LUA_PATH", LUA_DIRS)
setpath("cpath", "LUA_CPATH", C_DIRS)

local searchpath = package.searchpath

local function search_preload(name)
  if preload[name] == nil then return "no field package.preload['" .. name .. "']" end
  return preload[name], ":preload:"
end

-- findfile: `name` along package[field].
local function findfile(name, field)
  local path = package[field]
  local t = type(path)
  if t ~= "string" and t ~= "number" then raise("'package." .. field .. "' must be a string") end
  return searchpath(name, path)
end

local function search_lua(name)
  local filename, err = findfile(name, "path")
  if filename == nil then return err end
  local f, msg = rawloadfile(G, filename)
  if f == nil then
    raise("error loading module '" .. name .. "' from file '" .. filename .. "':\n\t" .. msg)
  end
  return f, filename
end

-- C libraries cannot be loaded here: a file the C searchers find is an
-- error, as in a lua5.4 built without dynamic libraries.
local function load_c(name, filename)
  raise("error loading module '" .. name .. "' from file '" .. filename
    .. "':\n\tdynamic libraries not enabled; check your Lua installation")
end

local function search_c(name)
  local filename, err = findfile(name, "cpath")
  if filename == nil then return err end
  load_c(name, filename)
end

local function search_croot(name)
  local root = match(name, "^([^.]*)%.")
  if root == nil then return end
  local filename, err = findfile(root, "cpath")
  if filename == nil then return err end
  load_c(name, filename)
end

package.searchers = {search_preload, search_lua, search_c, search_croot}

function require(...)
  local name = ...
  local t = type(name)
  if t ~= "string" and t ~= "number" then
    local got = select("#", ...) == 0 and "no value" or typename(name)
    argerror(1, "require", "string expected, got " .. got)
  end
  name = name .. ""
  local v = loaded[name]
  if v then return v end
  local searchers = package.searchers
  if type(searchers) ~= "table" then raise("'package.searchers' must be a table") end
  local tried, loader, data, i = {}, nil, nil, 1
  while true do
    local searcher = rawget(searchers, i)
    if searcher == nil then raise("module '" .. name .. "' not found:" .. concat(tried)) end
    loader, data = searcher(name)
    if type(loader) == "function" then break end
    local t = type(loader)
    if t == "string" or t == "number" then tried[#tried + 1] = "\n\t" .. loader end
    i = i + 1
  end
  local r = loader(name, data)
  if r ~= nil then loaded[name] = r end
  if loaded[name] == nil then loaded[name] = true end
  return loaded[name], data
end

-- string.format, gsub, gmatch --------------------------------------------

local rawformat = prim.format

function string.format(...)
  local s, need = rawformat(...)
  if s ~= nil then return s end
  -- Argument `need` has a __tostring: pass its string and format again.
  local args = pack(...)
  repeat
    args[need] = tostr(args[need])
    s, need = rawformat(unpack(args, 1, args.n))
  until s ~= nil
  return s
end

local rawgsub, gsub_step, gsub_done = prim.gsub, prim.gsub_step, prim.gsub_done

-- add_value: the replacement of one match (`whole`, its values `...`);
-- false when there was no match.
local function gsub_add(parts, repl, whole, ...)
  if whole == nil then return false end
  local v
  if type(repl) == "table" then v = repl[(...)] else v = repl(...) end
  if not v then
    v = whole
  elseif type(v) ~= "string" and type(v) ~= "number" then
    raise("invalid replacement value (a " .. type(v) .. ")")
  end
  parts[#parts + 1] = v
  return true
end

function string.gsub(...)
  local state, count = rawgsub(...)
  if count ~= nil then return state, count end
  local repl = select(3, ...)
  local parts = {}
  while gsub_add(parts, repl, gsub_step(state, parts)) do end
  return gsub_done(state, parts)
end

local rawgmatch, gmatch_step = prim.gmatch, prim.gmatch_step

function string.gmatch(...)
  local state = rawgmatch(...)
  return function() return gmatch_step(state) end
end

-- table.sort ---------------------------------------------------------------

local rawsort, lessthan, sort_random = prim.sort, prim.lessthan, prim.sort_random

local function default_lt(a, b)
  local r = lessthan(a, b)
  if r == nil then return a < b end
  return r
end

-- ltablib.c's auxsort and partition, step for step (the Rust copy in
-- builtins/sort.rs sorts what needs no Lua).
local function auxsort(t, lo, up, lt, rnd)
  while lo < up do
    local a, b = t[lo], t[up]
    if lt(b, a) then t[lo] = b; t[up] = a end
    if up - lo == 1 then break end
    local p
    if up - lo < 100 or rnd == 0 then
      p = (lo + up) // 2
    else
      local r4 = (up - lo) // 4
      p = rnd % (r4 * 2) + (lo + r4)
    end
    a, b = t[p], t[lo]
    if lt(a, b) then
      t[p] = b; t[lo] = a
    else
      b = t[up]
      if lt(b, a) then t[p] = b; t[up] = a end
    end
    if up - lo == 2 then break end
    local pivot = t[p]
    t[p] = t[up - 1]; t[up - 1] = pivot
    local i, j = lo, up - 1
    while true do
      i = i + 1
      a = t[i]
      while lt(a, pivot) do
        if i == up - 1 then raise("invalid order function for sorting") end
        i = i + 1
        a = t[i]
      end
      j = j - 1
      b = t[j]
      while lt(pivot, b) do
        if j < i then raise("invalid order function for sorting") end
        j = j - 1
        b = t[j]
      end
      if j < i then
        t[up - 1] = a; t[i] = pivot
        break
      end
      t[i] = b; t[j] = a
    end
    local n
    if i - lo < up - i then
      auxsort(t, lo, i - 1, lt, rnd)
      n = i - lo
      lo = i + 1
    else
      auxsort(t, i + 1, up, lt, rnd)
      n = up - i
      up = i - 1
    end
    if (up - lo) // 128 > n then rnd = sort_random() end
  end
end

function table.sort(...)
  if not rawsort(...) then return end
  local t, comp = ...
  local n = #t
  if n <= 1 then return end
  if n >= 2147483647 then argerror(1, "table.sort", "array too big") end
  if comp ~= nil and type(comp) ~= "function" then
    argerror(2, "table.sort", "function expected, got " .. typename(comp))
  end
  auxsort(t, 1, n, comp or default_lt, 0)
end

-- io ---------------------------------------------------------------------

local filemeta = prim.filemeta
local methods = filemeta.__index
local rawread, rawopen = prim["io.read"], prim["io.open"]
local checkfile, readline = prim.checkfile, prim.readline
local close, flush = prim["io.close"], methods.flush
local input, output = stdin, stdout

function io.write(...) return rawwrite(output, ...) end

function io.read(...) return rawread(input, ...) end

function io.open(...) return rawopen(filemeta, ...) end

-- aux_lines: the iterator reading `...` formats from `f`.
local function lines(f, toclose, ...)
  if select("#", ...) > 250 then argerror(252, "lines", "too many arguments") end
  local formats = pack(...)
  return function() return readline(f, toclose, unpack(formats, 1, formats.n)) end
end

function methods.lines(...)
  local f = ...
  checkfile("lines", f)
  return lines(f, false, select(2, ...))
end

-- opencheckfile
local function open_or_raise(filename, mode)
  local f, message = rawopen(filemeta, filename, mode)
  if f == nil then
    local reason = sub(message, #(filename .. "") + 3)
    raise("cannot open file '" .. filename .. "' (" .. reason .. ")")
  end
  return f
end

function io.lines(filename, ...)
  if filename == nil then
    checkfile("io.lines", input)
    return lines(input, false, ...)
  end
  local f = open_or_raise(filename, "r")
  return lines(f, true, ...), nil, nil, f
end

function io.close(...)
  if select("#", ...) == 0 then return close(output) end
  return close(...)
end

function io.flush()
  rawwrite(output)
  return flush(output)
end

-- g_iofile: the default file, set from a file name or a handle.
local function iofile(name, mode, current, ...)
  local file = ...
  if file == nil then return current end
  local t = type(file)
  if t == "string" or t == "number" then return open_or_raise(file, mode) end
  checkfile(name, file)
  return file
end

function io.input(...)
  input = iofile("io.input", "r", input, ...)
  return input
end

function io.output(...)
  output = iofile("io.output", "w", output, ...)
  return output
end

-- the script -------------------------------------------------------------

-- lua.c's msghandler: an error object that is no string becomes what its
-- __tostring gives, else "(error object is a X value)".
local function message(e)
  local t = type(e)
  if t == "string" or t == "number" then return e end
  local mm = metafield(e, "__tostring")
  if mm ~= nil then
    local s = mm(e)
    if type(s) == "string" then return s end
  end
  return "(error object is a " .. t .. " value)"
end

local ok, e = pcall(main, select(3, ...))
if not ok then rethrow(message(e)) end
