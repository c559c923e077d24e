-- deltablue: a small DeltaBlue-like incremental constraint solver. Classes are metatables with __index,
-- inheritance is a setmetatable chain (Constraint <- UnaryConstraint <- StayConstraint/EditConstraint,
-- Constraint <- BinaryConstraint <- EqualityConstraint/ScaleConstraint); super calls go through the parent.
local n = tonumber(arg and arg[1]) or 300

local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, { __index = parent }) end
  return c
end

---------------------------------------------------------------- strengths
local Strength = class()
function Strength.new(value, name)
  return setmetatable({ value = value, name = name }, Strength)
end
local REQUIRED = Strength.new(0, "required")
local STRONG_PREFERRED = Strength.new(1, "strongPreferred")
local PREFERRED = Strength.new(2, "preferred")
local STRONG_DEFAULT = Strength.new(3, "strongDefault")
local NORMAL = Strength.new(4, "normal")
local WEAK_DEFAULT = Strength.new(5, "weakDefault")
local WEAKEST = Strength.new(6, "weakest")
local by_value = { [0] = REQUIRED, STRONG_PREFERRED, PREFERRED, STRONG_DEFAULT, NORMAL, WEAK_DEFAULT, WEAKEST }

local function stronger(a, b) return a.value < b.value end
local function weaker(a, b) return a.value > b.value end
local function weakest_of(a, b) if weaker(a, b) then return a end return b end
function Strength:next_weaker() return by_value[self.value + 1] end

local planner -- the current Planner

---------------------------------------------------------------- variables
local Variable = class()
function Variable.new(name, value)
  return setmetatable({ name = name, value = value or 0, constraints = {}, determined_by = nil,
                        mark = 0, walk_strength = WEAKEST, stay = true }, Variable)
end
function Variable:add_constraint(c)
  local cs = self.constraints
  cs[#cs + 1] = c
end
function Variable:remove_constraint(c)
  local cs, kept = self.constraints, {}
  for i = 1, #cs do
    if cs[i] ~= c then kept[#kept + 1] = cs[i] end
  end
  self.constraints = kept
  if self.determined_by == c then self.determined_by = nil end
end

---------------------------------------------------------------- constraints
local Constraint = class()
function Constraint:add_constraint()
  self:add_to_graph()
  planner:incremental_add(self)
end
function Constraint:satisfy(mark)
  self:choose_method(mark)
  if not self:is_satisfied() then
    if self.strength == REQUIRED then error("could not satisfy a required constraint") end
    return nil
  end
  self:mark_inputs(mark)
  local out = self:output()
  local overridden = out.determined_by
  if overridden ~= nil then overridden:mark_unsatisfied() end
  out.determined_by = self
  if not planner:add_propagate(self, mark) then error("cycle encountered") end
  out.mark = mark
  return overridden
end
function Constraint:destroy_constraint()
  if self:is_satisfied() then planner:incremental_remove(self) end
  self:remove_from_graph()
end
function Constraint:is_input() return false end

local UnaryConstraint = class(Constraint)
function UnaryConstraint.init(self, v, strength)
  self.my_output, self.strength, self.satisfied = v, strength, false
  self:add_constraint()
  return self
end
function UnaryConstraint:add_to_graph()
  self.my_output:add_constraint(self)
  self.satisfied = false
end
function UnaryConstraint:choose_method(mark)
  local out = self.my_output
  self.satisfied = out.mark ~= mark and stronger(self.strength, out.walk_strength)
end
function UnaryConstraint:is_satisfied() return self.satisfied end
function UnaryConstraint:mark_inputs(mark) end
function UnaryConstraint:output() return self.my_output end
function UnaryConstraint:recalculate()
  local out = self.my_output
  out.walk_strength = self.strength
  out.stay = not self:is_input()
  if out.stay then self:execute() end
end
function UnaryConstraint:mark_unsatisfied() self.satisfied = false end
function UnaryConstraint:inputs_known() return true end
function UnaryConstraint:remove_from_graph()
  if self.my_output ~= nil then self.my_output:remove_constraint(self) end
  self.satisfied = false
end

local StayConstraint = class(UnaryConstraint)
function StayConstraint.new(v, strength)
  return UnaryConstraint.init(setmetatable({}, StayConstraint), v, strength)
end
function StayConstraint:execute() end

local EditConstraint = class(UnaryConstraint)
function EditConstraint.new(v, strength)
  return UnaryConstraint.init(setmetatable({}, EditConstraint), v, strength)
end
function EditConstraint:is_input() return true end
function EditConstraint:execute() end

local NONE, FORWARD, BACKWARD = 0, 1, 2

local BinaryConstraint = class(Constraint)
function BinaryConstraint.init(self, v1, v2, strength)
  self.v1, self.v2, self.strength, self.direction = v1, v2, strength, NONE
  self:add_constraint()
  return self
end
function BinaryConstraint:choose_method(mark)
  local v1, v2, s = self.v1, self.v2, self.strength
  if v1.mark == mark then
    if v2.mark ~= mark and stronger(s, v2.walk_strength) then self.direction = FORWARD
    else self.direction = NONE end
  elseif v2.mark == mark then
    if v1.mark ~= mark and stronger(s, v1.walk_strength) then self.direction = BACKWARD
    else self.direction = NONE end
  elseif weaker(v1.walk_strength, v2.walk_strength) then
    if stronger(s, v1.walk_strength) then self.direction = BACKWARD else self.direction = NONE end
  else
    if stronger(s, v2.walk_strength) then self.direction = FORWARD else self.direction = BACKWARD end
  end
end
function BinaryConstraint:add_to_graph()
  self.v1:add_constraint(self)
  self.v2:add_constraint(self)
  self.direction = NONE
end
function BinaryConstraint:is_satisfied() return self.direction ~= NONE end
function BinaryConstraint:mark_inputs(mark) self:input().mark = mark end
function BinaryConstraint:input()
  if self.direction == FORWARD then return self.v1 end
  return self.v2
end
function BinaryConstraint:output()
  if self.direction == FORWARD then return self.v2 end
  return self.v1
end
function BinaryConstraint:recalculate()
  local ihn, out = self:input(), self:output()
  out.walk_strength = weakest_of(self.strength, ihn.walk_strength)
  out.stay = ihn.stay
  if out.stay then self:execute() end
end
function BinaryConstraint:mark_unsatisfied() self.direction = NONE end
function BinaryConstraint:inputs_known(mark)
  local i = self:input()
  return i.mark == mark or i.stay or i.determined_by == nil
end
function BinaryConstraint:remove_from_graph()
  if self.v1 ~= nil then self.v1:remove_constraint(self) end
  if self.v2 ~= nil then self.v2:remove_constraint(self) end
  self.direction = NONE
end

local EqualityConstraint = class(BinaryConstraint)
function EqualityConstraint.new(v1, v2, strength)
  return BinaryConstraint.init(setmetatable({}, EqualityConstraint), v1, v2, strength)
end
function EqualityConstraint:execute()
  self:output().value = self:input().value
end

-- dest = src * scale + offset
local ScaleConstraint = class(BinaryConstraint)
function ScaleConstraint.new(src, scale, offset, dest, strength)
  local self = setmetatable({ scale = scale, offset = offset }, ScaleConstraint)
  return BinaryConstraint.init(self, src, dest, strength)
end
function ScaleConstraint:add_to_graph()
  BinaryConstraint.add_to_graph(self)
  self.scale:add_constraint(self)
  self.offset:add_constraint(self)
end
function ScaleConstraint:remove_from_graph()
  BinaryConstraint.remove_from_graph(self)
  if self.scale ~= nil then self.scale:remove_constraint(self) end
  if self.offset ~= nil then self.offset:remove_constraint(self) end
end
function ScaleConstraint:mark_inputs(mark)
  BinaryConstraint.mark_inputs(self, mark)
  self.scale.mark = mark
  self.offset.mark = mark
end
function ScaleConstraint:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value * self.scale.value + self.offset.value
  else
    self.v1.value = math.floor((self.v2.value - self.offset.value) / self.scale.value)
  end
end
function ScaleConstraint:recalculate()
  local ihn, out = self:input(), self:output()
  out.walk_strength = weakest_of(self.strength, ihn.walk_strength)
  out.stay = ihn.stay and self.scale.stay and self.offset.stay
  if out.stay then self:execute() end
end

---------------------------------------------------------------- plans and the planner
local Plan = class()
function Plan.new() return setmetatable({ list = {} }, Plan) end
function Plan:add(c) self.list[#self.list + 1] = c end
function Plan:execute()
  local l = self.list
  for i = 1, #l do l[i]:execute() end
end

-- a FIFO queue on a table with two indices
local Queue = class()
function Queue.new() return setmetatable({ first = 1, last = 0 }, Queue) end
function Queue:push(x) self.last = self.last + 1; self[self.last] = x end
function Queue:empty() return self.first > self.last end
function Queue:pop()
  local x = self[self.first]
  self[self.first] = nil
  self.first = self.first + 1
  return x
end

local Planner = class()
function Planner.new() return setmetatable({ current_mark = 0 }, Planner) end
function Planner:new_mark()
  self.current_mark = self.current_mark + 1
  return self.current_mark
end
function Planner:incremental_add(c)
  local mark = self:new_mark()
  local overridden = c:satisfy(mark)
  while overridden ~= nil do overridden = overridden:satisfy(mark) end
end
function Planner:incremental_remove(c)
  local out = c:output()
  c:mark_unsatisfied()
  c:remove_from_graph()
  local unsatisfied = self:remove_propagate_from(out)
  local strength = REQUIRED
  repeat
    for i = 1, #unsatisfied do
      local u = unsatisfied[i]
      if u.strength == strength then self:incremental_add(u) end
    end
    strength = strength:next_weaker()
  until strength == WEAKEST
end
function Planner:make_plan(sources)
  local mark = self:new_mark()
  local plan = Plan.new()
  local todo = sources
  while not todo:empty() do
    local c = todo:pop()
    local out = c:output()
    if out.mark ~= mark and c:inputs_known(mark) then
      plan:add(c)
      out.mark = mark
      self:add_constraints_consuming_to(out, todo)
    end
  end
  return plan
end
function Planner:extract_plan_from_constraints(constraints)
  local sources = Queue.new()
  for i = 1, #constraints do
    local c = constraints[i]
    if c:is_input() and c:is_satisfied() then sources:push(c) end
  end
  return self:make_plan(sources)
end
function Planner:add_propagate(c, mark)
  local todo = Queue.new()
  todo:push(c)
  while not todo:empty() do
    local d = todo:pop()
    if d:output().mark == mark then
      self:incremental_remove(c)
      return false
    end
    d:recalculate()
    self:add_constraints_consuming_to(d:output(), todo)
  end
  return true
end
function Planner:remove_propagate_from(out)
  out.determined_by = nil
  out.walk_strength = WEAKEST
  out.stay = true
  local unsatisfied = {}
  local todo = Queue.new()
  todo:push(out)
  while not todo:empty() do
    local v = todo:pop()
    local cs = v.constraints
    for i = 1, #cs do
      local c = cs[i]
      if not c:is_satisfied() then unsatisfied[#unsatisfied + 1] = c end
    end
    local determining = v.determined_by
    for i = 1, #cs do
      local nxt = cs[i]
      if nxt ~= determining and nxt:is_satisfied() then
        nxt:recalculate()
        todo:push(nxt:output())
      end
    end
  end
  return unsatisfied
end
function Planner:add_constraints_consuming_to(v, coll)
  local determining = v.determined_by
  local cs = v.constraints
  for i = 1, #cs do
    local c = cs[i]
    if c ~= determining and c:is_satisfied() then coll:push(c) end
  end
end

---------------------------------------------------------------- the two tests
local checksum = 0

local function check(cond, what)
  if not cond then error("deltablue: " .. what .. " failed") end
end

-- a chain of equality constraints, v0 = v1 = ... = vN, edited at the first, read at the last
local function chain_test(len)
  planner = Planner.new()
  local prev, first, last
  for i = 0, len do
    local v = Variable.new("v" .. i, 0)
    if prev ~= nil then EqualityConstraint.new(prev, v, REQUIRED) end
    if i == 0 then first = v end
    if i == len then last = v end
    prev = v
  end
  StayConstraint.new(last, STRONG_DEFAULT)
  local edit = EditConstraint.new(first, PREFERRED)
  local plan = planner:extract_plan_from_constraints({ edit })
  for i = 0, 99 do
    first.value = i
    plan:execute()
    check(last.value == i, "chain test")
    checksum = checksum + last.value
  end
  edit:destroy_constraint()
end

local function change(v, new_value)
  local edit = EditConstraint.new(v, PREFERRED)
  local plan = planner:extract_plan_from_constraints({ edit })
  for _ = 1, 10 do
    v.value = new_value
    plan:execute()
  end
  edit:destroy_constraint()
end

-- N scale constraints dst_i = src_i * scale + offset sharing scale and offset
local function projection_test(len)
  planner = Planner.new()
  local scale = Variable.new("scale", 10)
  local offset = Variable.new("offset", 1000)
  local src, dst
  local dests = {}
  for i = 0, len - 1 do
    src = Variable.new("src" .. i, i)
    dst = Variable.new("dst" .. i, i)
    dests[#dests + 1] = dst
    StayConstraint.new(src, NORMAL)
    ScaleConstraint.new(src, scale, offset, dst, REQUIRED)
  end
  change(src, 17)
  check(dst.value == 1170, "projection 1")
  change(dst, 1050)
  check(src.value == 5, "projection 2")
  change(scale, 5)
  for i = 0, len - 2 do
    check(dests[i + 1].value == i * 5 + 1000, "projection 3")
    checksum = checksum + dests[i + 1].value
  end
  change(offset, 2000)
  for i = 0, len - 2 do
    check(dests[i + 1].value == i * 5 + 2000, "projection 4")
    checksum = checksum + dests[i + 1].value
  end
end

for _ = 1, n do
  chain_test(100)
  projection_test(100)
  checksum = checksum % 1000000007
end
print(string.format("deltablue(%d): checksum %d, last mark %d", n, checksum, planner.current_mark))
