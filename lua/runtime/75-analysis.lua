-- 75-analysis.lua: latency analysis (tracewire.analysis.*, the pairs of core's LatencyTracker).

-- The pairs of core's org.tracewire.analysis.LatencyTracker, with the same rules, computed here in
-- frame order on the first pass (frames leave a capture in time order) and kept per frame number,
-- so a revisit, a second pass (tshark -2) and the GUI show the same:
--   "sched wakeup": sched_wakeup / sched_wakeup_new of pid -> the next sched_switch with
--                   next_pid == pid on any CPU (the first wakeup of a pending task is kept);
--   "syscall":      raw_syscalls:sys_enter -> sys_exit of the same task (common_pid) with the same
--                   id, and syscalls:sys_enter_X -> sys_exit_X with the same __syscall_nr (kept
--                   apart); another enter of the task replaces its pending one; an exit that does
--                   not match drops it;
--   "irq":          irq:irq_handler_entry -> irq_handler_exit per CPU and irq;
--   "softirq":      irq:softirq_entry -> softirq_exit per CPU and vec.
-- At most AN_MAX starts wait for their end (the oldest is dropped beyond that); a pair whose end
-- comes before its start is none. An event whose table lacks a field the tracker needs is ignored.
local anreset, analyse, antree
do
local AN_MAX = 65536
-- roles: 1 wakeup, 2 switch, 3 enter, 4 exit (syscalls), 5 entry, 6 exit (irq, softirq)
local AN_SPECS = {
  ["sched:sched_wakeup"] = { 1, "pid", "comm", "target_cpu", space = "wake", kind = "sched wakeup" },
  ["sched:sched_wakeup_new"] = { 1, "pid", "comm", "target_cpu", space = "wake", kind = "sched wakeup" },
  ["sched:sched_switch"] = { 2, "next_pid", space = "wake", kind = "sched wakeup" },
  ["raw_syscalls:sys_enter"] = { 3, "id", space = "raw", kind = "syscall" },
  ["raw_syscalls:sys_exit"] = { 4, "id", "ret", space = "raw", kind = "syscall" },
  ["irq:irq_handler_entry"] = { 5, "irq", "name", space = "irq", kind = "irq" },
  ["irq:irq_handler_exit"] = { 6, "irq", "ret", space = "irq", kind = "irq" },
  ["irq:softirq_entry"] = { 5, "vec", space = "softirq", kind = "softirq" },
  ["irq:softirq_exit"] = { 6, "vec", space = "softirq", kind = "softirq" },
}

-- State of the first pass (reset by tw.init). Pending starts live in AN_MAX numbered slots
-- (parallel arrays, so a start allocates no table): frame, time, id, name, space and key, and a
-- doubly linked list oldest first (0 ends it) for the eviction; each space maps its key to a slot.
-- Times are ns since the first analysed frame (exact below 2^53 ns, 104 days).
local AN_LAST, AN_H0, AN_L0
local AN_SPACES, AN_HEAD, AN_TAIL, AN_COUNT, AN_NSLOTS, AN_NFREE
local SF, ST, SID, SNM, SSP, SKEY, SPREV, SNEXT, SFREE
-- Pairs, in the order their ends come: appended to a log (one array of numbers, three per pair: end
-- frame, start frame, latency ns; no table and no C call per pair); a full log (AN_LOG pairs) is
-- packed into a string of 15 bytes per pair (Struct.pack, one call: 7.5 bytes per frame at most,
-- as a pair takes two frames) and the log starts over. Reading a frame other than the one just
-- analysed (a revisit: the GUI, tshark -2) first merges the packed pairs into the store: one Lua
-- string of AN_CHUNK records per chunk of frames (ANS[c], chunk c = frames c * AN_CHUNK + 1 ...;
-- a chunk without a pair has none), AN_REC bytes per frame (all zero: no pair): 4 bytes (big-
-- endian) the start frame on an end frame, or 2^31 + the end frame on a start frame; then 7 bytes
-- the pair's latency (ns). Strings are leaves to the collector (no walk per entry, as a table of
-- one entry per frame would need: measured, half the decode speed of a small plugin at 100k
-- frames), and a merge rebuilds only the chunks it touches. Memory: at most 7.5 bytes per frame
-- before the first revisit, AN_REC bytes per frame of a chunk holding a pair after it.
local AN_REC = 11
local AN_CHUNK = 1024
local AN_LOG = 4096
local AN_LOGFMT = ">" .. string.rep("I4I4I7", AN_LOG)
local AN_MAXFRAMES = 150000000  -- as the ByteArray store before it (sizes were C ints)
local ANS, ANZ, ANZR = nil, string.rep("\0", AN_REC * AN_CHUNK), {}
local ANL, NLOG, ANSEG, NSEG = {}, 0, {}, 0
local char, concat, tsort, unpack = string.char, table.concat, table.sort, table.unpack or unpack
local spack, sunpack = Struct.pack, Struct.unpack
function anreset()
  AN_LAST, AN_H0, AN_L0 = 0, nil, nil
  AN_SPACES = { wake = {}, raw = {}, sys = {}, irq = {}, softirq = {} }
  AN_HEAD, AN_TAIL, AN_COUNT, AN_NSLOTS, AN_NFREE = 0, 0, 0, 0, 0
  SF, ST, SID, SNM, SSP, SKEY, SPREV, SNEXT, SFREE = {}, {}, {}, {}, {}, {}, {}, {}, {}
  ANS, NLOG, ANSEG, NSEG = {}, 0, {}, 0
end
anreset()

-- AN_REC bytes: x (4 bytes, big-endian), ns (7 bytes, big-endian).
local function anenc(x, ns)
  local x3 = x % 256; x = (x - x3) / 256
  local x2 = x % 256; x = (x - x2) / 256
  local x1 = x % 256; local x0 = (x - x1) / 256
  local n6 = ns % 256; ns = (ns - n6) / 256
  local n5 = ns % 256; ns = (ns - n5) / 256
  local n4 = ns % 256; ns = (ns - n4) / 256
  local n3 = ns % 256; ns = (ns - n3) / 256
  local n2 = ns % 256; ns = (ns - n2) / 256
  local n1 = ns % 256; local n0 = (ns - n1) / 256
  return char(x0, x1, x2, x3, n0, n1, n2, n3, n4, n5, n6)
end

-- n zero records (a gap in a chunk that held none before).
local function anzeros(n)
  local z = ANZR[n]
  if not z then z = sub(ANZ, 1, n * AN_REC); ANZR[n] = z end
  return z
end

-- Merges n pairs (end, start, ns at 3k-2, 3k-1, 3k of l) into the store: both records of every
-- pair, chunk by chunk in frame order.
local function anmerge(l, n)
  -- sort keys: frame * 2^14 + pair index (+ 2^13 for the start record); n <= AN_LOG = 2^12
  local keys = {}
  for k = 1, n do
    keys[k] = l[3 * k - 2] * 16384 + k
    keys[n + k] = l[3 * k - 1] * 16384 + 8192 + k
  end
  tsort(keys)
  local k, m = 1, 2 * n
  while k <= m do
    local key = keys[k]
    local f = (key - key % 16384) / 16384
    local c = (f - 1 - (f - 1) % AN_CHUNK) / AN_CHUNK
    local old = ANS[c]
    local base = c * AN_CHUNK
    local pieces, np, pos = {}, 0, 0   -- pos: records of the chunk already placed
    while true do
      local r = key % 16384
      local off = f - 1 - base
      if off > pos then
        np = np + 1
        if not old then pieces[np] = anzeros(off - pos)
        else pieces[np] = sub(old, pos * AN_REC + 1, off * AN_REC) end
      end
      np = np + 1
      if r > 8192 then r = r - 8192; pieces[np] = anenc(2147483648 + l[3 * r - 2], l[3 * r])
      else pieces[np] = anenc(l[3 * r - 1], l[3 * r]) end
      pos = off + 1
      k = k + 1
      if k > m then break end
      key = keys[k]
      f = (key - key % 16384) / 16384
      if f > base + AN_CHUNK then break end
    end
    if pos < AN_CHUNK then
      np = np + 1
      if not old then pieces[np] = anzeros(AN_CHUNK - pos)
      else pieces[np] = sub(old, pos * AN_REC + 1) end
    end
    ANS[c] = concat(pieces)
  end
end

-- Merges the packed pairs and the log into the store.
local function anflush()
  for i = 1, NSEG do
    local l = { sunpack(AN_LOGFMT, ANSEG[i]) }
    ANSEG[i] = nil
    anmerge(l, AN_LOG)
  end
  NSEG = 0
  if NLOG > 0 then anmerge(ANL, NLOG); NLOG = 0 end
end

-- The record of frame number: x (0: none), ns.
local function anget(number)
  if number > AN_MAXFRAMES then return 0, 0 end
  if NLOG > 0 or NSEG > 0 then
    -- the frame just analysed: its record is the log's last pair or none yet (a start's end
    -- comes later); the log is packed only when the next pair comes
    if number == AN_LAST then
      local o = 3 * NLOG
      if NLOG > 0 and ANL[o - 2] == number then return ANL[o - 1], ANL[o] end
    else
      anflush()
    end
  end
  local c = (number - 1 - (number - 1) % AN_CHUNK) / AN_CHUNK
  local s = ANS[c]
  if not s then return 0, 0 end
  local o = (number - 1 - c * AN_CHUNK) * AN_REC
  local x0, x1, x2, x3, n0, n1, n2, n3, n4, n5, n6 = byte(s, o + 1, o + AN_REC)
  return ((x0 * 256 + x1) * 256 + x2) * 256 + x3,
    ((((((n0 * 256 + n1) * 256 + n2) * 256 + n3) * 256 + n4) * 256 + n5) * 256 + n6)
end

-- ev's analysis role: { role, field index, space, kind, name or false, size, signed, offset, end
-- (offset + size) } or false.
local function anrole(ev)
  local spec = AN_SPECS[ev.full]
  local name = false
  if not spec and ev.s == "syscalls" then
    if sub(ev.n, 1, 10) == "sys_enter_" then
      spec = { 3, "__syscall_nr" }; name = sub(ev.n, 11)
    elseif sub(ev.n, 1, 9) == "sys_exit_" then
      spec = { 4, "__syscall_nr", "ret" }; name = sub(ev.n, 10)
    end
    if spec then spec.space = "sys"; spec.kind = "syscall" end
  end
  if not spec then return false end
  local idx = {}
  for k = 2, #spec do
    for i, f in ipairs(ev.f) do
      if f.name == spec[k] then idx[k] = i; break end
    end
    if not idx[k] then return false end
  end
  local f = ev.f[idx[2]]
  if f.kind ~= "int" or not (f.size == 1 or f.size == 2 or f.size == 4 or f.size == 8) then return false end
  return { spec[1], idx[2], spec.space, spec.kind, name, f.size, f.signed, f.offset, f.offset + f.size }
end

local function le32(s, o)
  local a, b, c, d = byte(s, o + 1, o + 4)
  return ((d * 256 + c) * 256 + b) * 256 + a
end

-- An integer of size bytes at 0-based offset o of s as a Lua number (exact below 2^53).
local function anint(s, o, size, signed, le)
  if size == 8 then
    local lo, hi
    if le then lo, hi = le32(s, o), le32(s, o + 4) else hi, lo = be32(s, o), be32(s, o + 4) end
    if signed and hi >= 2147483648 then hi = hi - 4294967296 end
    return hi * 4294967296 + lo
  end
  local v = 0
  if size == 4 then
    if le then v = le32(s, o) else v = be32(s, o) end
  elseif le then
    for i = o + size, o + 1, -1 do v = v * 256 + byte(s, i) end
  else
    for i = o + 1, o + size do v = v * 256 + byte(s, i) end
  end
  if signed and v >= HALF[size] then v = v - POW[size] end
  return v
end

-- Unlinks slot i and frees it (its values stay readable until the next anstart).
local function anfree(i)
  local p, n = SPREV[i], SNEXT[i]
  if p ~= 0 then SNEXT[p] = n else AN_HEAD = n end
  if n ~= 0 then SPREV[n] = p else AN_TAIL = p end
  AN_NFREE = AN_NFREE + 1
  SFREE[AN_NFREE] = i
  AN_COUNT = AN_COUNT - 1
end

-- The slot pending under key in space, removed; nil when none.
local function anremove(space, key)
  local i = space[key]
  if i then space[key] = nil; anfree(i) end
  return i
end

-- A new pending start (frame f, time t, id, name) under key in space; evicts the oldest when full.
local function anstart(space, key, f, t, id, nm)
  if AN_COUNT >= AN_MAX then
    local h = AN_HEAD
    SSP[h][SKEY[h]] = nil
    anfree(h)
  end
  local i
  if AN_NFREE > 0 then
    i = SFREE[AN_NFREE]; AN_NFREE = AN_NFREE - 1
  else
    AN_NSLOTS = AN_NSLOTS + 1; i = AN_NSLOTS
  end
  SF[i], ST[i], SID[i], SNM[i], SSP[i], SKEY[i] = f, t, id, nm, space, key
  SPREV[i], SNEXT[i] = AN_TAIL, 0
  if AN_TAIL ~= 0 then SNEXT[AN_TAIL] = i else AN_HEAD = i end
  AN_TAIL = i
  AN_COUNT = AN_COUNT + 1
  space[key] = i
end

local function anpair(i, number, t)
  local ns = t - ST[i]
  if ns < 0 or number > AN_MAXFRAMES then return end
  local n = NLOG
  if n == AN_LOG then
    NSEG = NSEG + 1
    ANSEG[NSEG] = spack(AN_LOGFMT, unpack(ANL, 1, 3 * AN_LOG))
    n = 0
  end
  NLOG = n + 1
  n = 3 * n
  ANL[n + 1], ANL[n + 2], ANL[n + 3] = number, SF[i], ns
end

-- Feeds frame number (first pass, in frame order) of the event in ctx: cpu from the header, pid its
-- common_pid; the time is the header's (ns, bytes 8..15 of ctx.s). A field outside the record
-- leaves the frame out (the Java tracker's RecordException). The time is read only when a start or
-- a pair needs it.
function analyse(ctx, number, cpu, pid)
  if number <= AN_LAST then return end
  AN_LAST = number
  local ev = ctx.ev
  if not ev then return end
  local r = ev.an
  if r == nil then r = anrole(ev); ev.an = r end
  if not r then return end
  if r[9] > ctx.pl then return end
  local s, o, size, v = ctx.s, ctx.b + r[8], r[6], nil
  if size == 4 then
    local a, b, c, d = byte(s, o + 1, o + 4)
    if ctx.le then v = ((d * 256 + c) * 256 + b) * 256 + a else v = ((a * 256 + b) * 256 + c) * 256 + d end
    if r[7] and v >= 2147483648 then v = v - 4294967296 end
  else
    v = anint(s, o, size, r[7], ctx.le)
  end
  local role, space = r[1], AN_SPACES[r[3]]
  local i, t
  if AN_H0 == nil then
    local a, b, c, d, e, f, g, h = byte(s, 9, 16)
    AN_H0, AN_L0 = ((a * 256 + b) * 256 + c) * 256 + d, ((e * 256 + f) * 256 + g) * 256 + h
  end
  if role == 1 then
    if space[v] == nil then
      local a, b, c, d, e, f, g, h = byte(s, 9, 16)
      t = (((a * 256 + b) * 256 + c) * 256 + d - AN_H0) * 4294967296 + (((e * 256 + f) * 256 + g) * 256 + h - AN_L0)
      anstart(space, v, number, t, 0, false)
    end
    return
  elseif role == 2 then
    i = space[v]
    if not i then return end
    space[v] = nil; anfree(i)
  elseif role == 3 then
    anremove(space, pid)
    local a, b, c, d, e, f, g, h = byte(s, 9, 16)
    t = (((a * 256 + b) * 256 + c) * 256 + d - AN_H0) * 4294967296 + (((e * 256 + f) * 256 + g) * 256 + h - AN_L0)
    anstart(space, pid, number, t, v, r[5])
    return
  elseif role == 4 then
    i = anremove(space, pid)
    if not (i and SID[i] == v and SNM[i] == r[5]) then return end
  else
    -- per CPU and irq/vec: cpu * 2^33 + v is one number per pair (|v| < 2^32)
    local key = cpu * 8589934592 + v
    i = anremove(space, key)
    if role == 5 then
      local a, b, c, d, e, f, g, h = byte(s, 9, 16)
      t = (((a * 256 + b) * 256 + c) * 256 + d - AN_H0) * 4294967296 + (((e * 256 + f) * 256 + g) * 256 + h - AN_L0)
      anstart(space, key, number, t, v, false)
      return
    end
    if not i then return end
  end
  -- an end: the pair of slot i
  local a, b, c, d, e, f, g, h = byte(s, 9, 16)
  t = (((a * 256 + b) * 256 + c) * 256 + d - AN_H0) * 4294967296 + (((e * 256 + f) * 256 + g) * 256 + h - AN_L0)
  anpair(i, number, t)
end

local function nstime(ns)
  local secs = math.floor(ns / 1000000000)
  return NSTime.new(secs, ns - secs * 1000000000)
end

local function nstext(ns)
  if ns < 1000 then return string.format("%d ns", ns) end
  if ns < 1000000 then return string.format("%.3f \194\181s", ns / 1000) end
  if ns < 1000000000 then return string.format("%.3f ms", ns / 1000000) end
  return string.format("%.3f s", ns / 1000000000)
end

-- Adds the "Latency analysis" subtree of frame number (event ev) to tree (mode 1: only when one
-- of its fields is referenced).
function antree(tree, mode, tvb, number, ev)
  if mode == 1 and not anyref(tree, AF_LIST) then return end
  local kind = ev and ev.an and ev.an[4]
  if not kind then return end
  local x, ns = anget(number)
  if x == 0 then return end
  local r = tvb(0, 0)
  local t = tree:add(AF.analysis, r)
  t:set_generated()
  if x < 2147483648 then
    local st = x
    t:set_text("Latency analysis: " .. kind .. ", " .. nstext(ns) .. " since frame " .. st)
    t:add(AF.kind, r, kind):set_generated()
    t:add(AF.latency, r, nstime(ns)):set_generated()
    t:add(AF.latency_ns, r, UInt64.new(ns % 4294967296, math.floor(ns / 4294967296))):set_generated()
    t:add(AF.start_frame, r, st):set_generated()
  else
    local en = x - 2147483648
    t:set_text("Latency analysis: start of a " .. kind .. " pair, " .. nstext(ns) .. " until frame " .. en)
    t:add(AF.end_frame, r, en):set_generated()
  end
end
end

-- Stack links: a stack record (ftrace:kernel_stack, ftrace:user_stack: capture --stack,
-- docs/stacks.md) follows its event on the same CPU as that CPU's next record(s) (the user stack
-- first, then the kernel stack's trigger), from the same task. Computed in frame order on the first
-- pass (per scope and CPU: the last event and its pid) and kept per frame number, so a revisit, a
-- second pass (tshark -2) and the GUI show the same; reset by tw.init. A LOST message on a CPU ends
-- its pending event (the stack may belong to a lost one), and so does a record of another task.
-- Each link is one table entry per frame: STK_OF[stack frame] = event frame, STK_EV[event frame] =
-- its first stack frame, STK_EV2[event frame] = its second (--stack=both).
local streset, stlink, stlost, sttree
do
local STK_LAST, STK_CPU, STK_PID, STK_OF, STK_EV, STK_EV2

function streset()
  STK_LAST, STK_CPU, STK_PID, STK_OF, STK_EV, STK_EV2 = 0, {}, {}, {}, {}, {}
end
streset()

-- 1: kernel stack, 2: user stack, false: another event (kept in ev.stk).
local function stkind(ev)
  local k = ev.stk
  if k == nil then
    k = false
    if ev.s == "ftrace" then
      if ev.n == "kernel_stack" then k = 1 elseif ev.n == "user_stack" then k = 2 end
    end
    ev.stk = k
  end
  return k
end

-- Feeds EVENT frame number (first pass, in frame order) of event ev (nil: unknown) from task pid on
-- cpu of scope key.
function stlink(ev, number, key, cpu, pid)
  if number <= STK_LAST then return end
  STK_LAST = number
  local t = STK_CPU[key]
  if not t then t = {}; STK_CPU[key] = t; STK_PID[key] = {} end
  if ev and stkind(ev) then
    local e = t[cpu]
    if e and STK_PID[key][cpu] == pid then
      STK_OF[number] = e
      if not STK_EV[e] then STK_EV[e] = number elseif not STK_EV2[e] then STK_EV2[e] = number end
    end
  else
    t[cpu] = number
    STK_PID[key][cpu] = pid
  end
end

-- A LOST message of scope key for cpu at frame number (first pass): no pending event there.
function stlost(number, key, cpu)
  if number <= STK_LAST then return end
  STK_LAST = number
  local t = STK_CPU[key]
  if t then t[cpu] = nil end
end

-- The link items of frame number (event ev) in tree (mode 1: only when referenced): a stack
-- record's "Stack of the event in frame" inside its "Stack trace" subtree (sub, when there is one),
-- an event's "Stack trace in frame" per stack record that follows it.
function sttree(tree, sub, mode, tvb, number, ev)
  if mode == 1 and not (tree:referenced(SF.event) or tree:referenced(SF.frame)) then return end
  local r = tvb(0, 0)
  if stkind(ev) then
    local e = STK_OF[number]
    if e then (sub or tree):add(SF.event, r, e):set_generated() end
    return
  end
  local s = STK_EV[number]
  if s then
    tree:add(SF.frame, r, s):set_generated()
    s = STK_EV2[number]
    if s then tree:add(SF.frame, r, s):set_generated() end
  end
end
end
