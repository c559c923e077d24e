-- richards: a Richards-like operating-system task scheduler. Tasks and packets are objects (classes as
-- metatables with __index); the scheduler calls each task's run method polymorphically.
local n = tonumber(arg and arg[1]) or 400

local ID_IDLE, ID_WORKER, ID_HANDLER_A, ID_HANDLER_B, ID_DEVICE_A, ID_DEVICE_B = 1, 2, 3, 4, 5, 6
local NUM_TASKS = 6
local KIND_DEVICE, KIND_WORK = 0, 1
local DATA_SIZE = 4

---------------------------------------------------------------- packets
local Packet = {}
Packet.__index = Packet

function Packet.new(link, id, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({ link = link, id = id, kind = kind, a1 = 0, a2 = data }, Packet)
end

-- append self at the end of the queue starting at `queue`; returns the new head
function Packet:append_to(queue)
  self.link = nil
  if queue == nil then return self end
  local p = queue
  while p.link ~= nil do p = p.link end
  p.link = self
  return queue
end

---------------------------------------------------------------- scheduler
local Scheduler = {}
Scheduler.__index = Scheduler

function Scheduler.new()
  return setmetatable({
    queue_count = 0, hold_count = 0,
    blocks = {}, list = nil, current = nil, current_id = nil,
  }, Scheduler)
end

---------------------------------------------------------------- task control blocks
local Tcb = {}
Tcb.__index = Tcb

function Tcb.new(link, id, pri, queue, task)
  local t = setmetatable({ link = link, id = id, pri = pri, queue = queue, task = task,
                           packet_pending = queue ~= nil, waiting = false, held = false }, Tcb)
  return t
end

function Tcb:is_held_or_suspended()
  return self.held or (not self.packet_pending and self.waiting)
end

function Tcb:mark_running()
  self.packet_pending, self.waiting = false, false
end

function Tcb:check_priority_add(current, packet)
  if self.queue == nil then
    self.queue = packet
    self.packet_pending = true
    if self.pri > current.pri then return self end
  else
    self.queue = packet:append_to(self.queue)
  end
  return current
end

function Tcb:run()
  local packet = nil
  if self.waiting and self.packet_pending then
    packet = self.queue
    self.queue = packet.link
    self.waiting = false
    self.packet_pending = self.queue ~= nil
  end
  return self.task:run(packet)
end

function Scheduler:add_task(id, pri, queue, task)
  self.current = Tcb.new(self.list, id, pri, queue, task)
  self.list = self.current
  self.blocks[id] = self.current
end

function Scheduler:schedule()
  self.current = self.list
  while self.current ~= nil do
    local c = self.current
    if c:is_held_or_suspended() then
      self.current = c.link
    else
      self.current_id = c.id
      self.current = c:run()
    end
  end
end

function Scheduler:release(id)
  local t = self.blocks[id]
  if t == nil then return t end
  t.held = false
  if t.pri > self.current.pri then return t end
  return self.current
end

function Scheduler:hold_current()
  self.hold_count = self.hold_count + 1
  self.current.held = true
  return self.current.link
end

function Scheduler:suspend_current()
  self.current.waiting = true
  return self.current
end

function Scheduler:queue(packet)
  local t = self.blocks[packet.id]
  if t == nil then return t end
  self.queue_count = self.queue_count + 1
  packet.link = nil
  packet.id = self.current_id
  return t:check_priority_add(self.current, packet)
end

---------------------------------------------------------------- the tasks
local IdleTask = {}
IdleTask.__index = IdleTask
function IdleTask.new(s, v1, count)
  return setmetatable({ s = s, v1 = v1, count = count }, IdleTask)
end
function IdleTask:run(packet)
  self.count = self.count - 1
  if self.count == 0 then return self.s:hold_current() end
  -- a 16-bit linear feedback shift register picks the device to wake
  if self.v1 % 2 == 0 then
    self.v1 = math.floor(self.v1 / 2)
    return self.s:release(ID_DEVICE_A)
  end
  local v = math.floor(self.v1 / 2)
  -- v xor 0xD008, done digit by digit to stay in the 5.1 subset
  local r, bit, a, b = 0, 1, v, 0xD008
  for _ = 1, 16 do
    if (a % 2) ~= (b % 2) then r = r + bit end
    a, b, bit = math.floor(a / 2), math.floor(b / 2), bit * 2
  end
  self.v1 = r
  return self.s:release(ID_DEVICE_B)
end

local DeviceTask = {}
DeviceTask.__index = DeviceTask
function DeviceTask.new(s)
  return setmetatable({ s = s, pending = nil }, DeviceTask)
end
function DeviceTask:run(packet)
  if packet == nil then
    local v = self.pending
    if v == nil then return self.s:suspend_current() end
    self.pending = nil
    return self.s:queue(v)
  end
  self.pending = packet
  return self.s:hold_current()
end

local WorkerTask = {}
WorkerTask.__index = WorkerTask
function WorkerTask.new(s, v1, v2)
  return setmetatable({ s = s, v1 = v1, v2 = v2 }, WorkerTask)
end
function WorkerTask:run(packet)
  if packet == nil then return self.s:suspend_current() end
  if self.v1 == ID_HANDLER_A then self.v1 = ID_HANDLER_B else self.v1 = ID_HANDLER_A end
  packet.id = self.v1
  packet.a1 = 0
  for i = 1, DATA_SIZE do
    self.v2 = self.v2 + 1
    if self.v2 > 26 then self.v2 = 1 end
    packet.a2[i] = self.v2
  end
  return self.s:queue(packet)
end

local HandlerTask = {}
HandlerTask.__index = HandlerTask
function HandlerTask.new(s)
  return setmetatable({ s = s, v1 = nil, v2 = nil }, HandlerTask)
end
function HandlerTask:run(packet)
  if packet ~= nil then
    if packet.kind == KIND_WORK then
      self.v1 = packet:append_to(self.v1)
    else
      self.v2 = packet:append_to(self.v2)
    end
  end
  if self.v1 ~= nil then
    local count = self.v1.a1
    if count < DATA_SIZE then
      if self.v2 ~= nil then
        local v = self.v2
        self.v2 = v.link
        v.a1 = self.v1.a2[count + 1]
        self.v1.a1 = count + 1
        return self.s:queue(v)
      end
    else
      local v = self.v1
      self.v1 = v.link
      return self.s:queue(v)
    end
  end
  return self.s:suspend_current()
end

---------------------------------------------------------------- one run
local function run_once(count)
  local s = Scheduler.new()
  s:add_task(ID_IDLE, 0, nil, IdleTask.new(s, 1, count))

  local q = Packet.new(nil, ID_WORKER, KIND_WORK)
  q = Packet.new(q, ID_WORKER, KIND_WORK)
  s:add_task(ID_WORKER, 1000, q, WorkerTask.new(s, ID_HANDLER_A, 0))

  q = Packet.new(nil, ID_DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_A, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_A, KIND_DEVICE)
  s:add_task(ID_HANDLER_A, 2000, q, HandlerTask.new(s))

  q = Packet.new(nil, ID_DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_B, KIND_DEVICE)
  q = Packet.new(q, ID_DEVICE_B, KIND_DEVICE)
  s:add_task(ID_HANDLER_B, 3000, q, HandlerTask.new(s))

  s:add_task(ID_DEVICE_A, 4000, nil, DeviceTask.new(s))
  s:add_task(ID_DEVICE_B, 5000, nil, DeviceTask.new(s))

  s:schedule()
  return s.queue_count, s.hold_count
end

local qsum, hsum = 0, 0
local qc, hc
for _ = 1, n do
  qc, hc = run_once(1000)
  qsum, hsum = qsum + qc, hsum + hc
end
print(string.format("richards: queue_count=%d hold_count=%d (x%d: %d %d)", qc, hc, n, qsum, hsum))
assert(NUM_TASKS == 6)
