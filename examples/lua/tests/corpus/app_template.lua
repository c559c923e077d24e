-- app: a template engine with variables, filters, loops and conditionals (gsub-based)

local Template = {}
Template.__index = Template

local filters = {
  upper = string.upper,
  lower = string.lower,
  trim = function(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end,
  len = function(s) return tostring(#s) end,
  title = function(s) return (s:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b:lower() end)) end,
  escape = function(s)
    return (s:gsub("[<>&\"]", {["<"] = "&lt;", [">"] = "&gt;", ["&"] = "&amp;", ['"'] = "&quot;"}))
  end,
  money = function(s)
    local n = tonumber(s)
    local int, frac = string.format("%.2f", n):match("(%d+)%.(%d+)")
    int = int:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
    return "$" .. int .. "." .. frac
  end,
}

local function lookup(ctx, path)
  local v = ctx
  for part in path:gmatch("[^%.]+") do
    if type(v) ~= "table" then return nil end
    local n = tonumber(part)
    v = v[n or part]
  end
  return v
end

local function render_vars(s, ctx)
  return (s:gsub("{{%s*([%w_%.]+)%s*(.-)}}", function(path, rest)
    local v = lookup(ctx, path)
    if v == nil then v = "" end
    v = tostring(v)
    for f in rest:gmatch("|%s*([%w_]+)") do
      local fn = filters[f]
      if not fn then error("unknown filter '" .. f .. "'", 0) end
      v = fn(v)
    end
    return v
  end))
end

local render

local function render_blocks(s, ctx)
  -- loops: {% for x in list %}...{% end %}
  s = s:gsub("{%%%s*for%s+([%w_]+)%s+in%s+([%w_%.]+)%s*%%}(.-){%%%s*endfor%s*%%}", function(var, path, body)
    local list = lookup(ctx, path)
    if type(list) ~= "table" then return "" end
    local out = {}
    for i, item in ipairs(list) do
      local child = setmetatable({[var] = item, loop = {index = i, first = i == 1, last = i == #list}}, {__index = ctx})
      out[#out + 1] = render(body, child)
    end
    return table.concat(out)
  end)
  -- conditionals: {% if path %}...{% else %}...{% endif %}
  s = s:gsub("{%%%s*if%s+([%w_%.%s]-)%s*%%}(.-){%%%s*endif%s*%%}", function(expr, body)
    local yes, no = body:match("^(.-){%%%s*else%s*%%}(.*)$")
    if not yes then yes, no = body, "" end
    local neg, path = expr:match("^not%s+(.*)$"), expr
    if neg then path = neg end
    local cond = lookup(ctx, path)
    if neg then cond = not cond end
    return render(cond and yes or no, ctx)
  end)
  return s
end

function render(s, ctx)
  return render_vars(render_blocks(s, ctx), ctx)
end

function Template.new(src) return setmetatable({src = src}, Template) end
function Template:render(ctx) return render(self.src, ctx) end

local page = Template.new([[
Hello, {{ user.name | title }}!
You have {{ user.unread }} unread message{% if user.plural %}s{% endif %}.
{% if user.admin %}[admin]{% else %}[member]{% endif %} since {{user.since}}
Items:{% for item in items %}
  {{ loop.index }}. {{ item.name | upper }} - {{ item.price | money }}{% if loop.last %} (last){% endif %}{% endfor %}
Total: {{ total | money }}
Escaped: {{ note | escape }}
Name length: {{ user.name | trim | len }}
Missing: [{{ nothing.here }}]
]])

local items = {
  {name = "widget", price = 4.5},
  {name = "gadget", price = 1234.5},
  {name = "doohickey", price = 1000000},
}
local total = 0
for _, it in ipairs(items) do total = total + it.price end

io.write(page:render({
  user = {name = "  ada LOVELACE ", unread = 3, plural = true, admin = false, since = 1843},
  items = items,
  total = total,
  note = '<b>"fish" & chips</b>',
}))

local short = Template.new("{% for x in xs %}{{x}}{% if not loop.last %}, {% endif %}{% endfor %}")
print(short:render({xs = {"a", "b", "c"}}))
print(short:render({xs = {}}) == "")
print(Template.new("{{ a.1 }}-{{ a.2 }}"):render({a = {"one", "two"}}))
print(pcall(Template.render, Template.new("{{ x | nofilter }}"), {x = 1}))

-- a second engine: ${var} substitution with a default value syntax ${var:-default}
local function interp(s, vars)
  return (s:gsub("%${([%w_]+)(:?%-?)([^}]*)}", function(name, op, default)
    local v = vars[name]
    if v == nil or (op == ":-" and v == "") then
      if op ~= "" then return default end
      return "${" .. name .. "}"
    end
    return tostring(v)
  end))
end
print(interp("${greeting}, ${name:-stranger}! ${unknown} ${empty:-was empty}", {greeting = "Hi", empty = ""}))
print(interp("${a}${b}${a}", {a = 1, b = 2.5}))
