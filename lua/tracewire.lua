-- tracewire.lua: the Wireshark dissector runtime for tracewire frames, wire format version 2
-- (docs/wire-format.md): Ethernet frames of EtherType 0x88B5 and pcapng records of link type
-- LINKTYPE_USER15 (162).
--
-- Implements the 16-byte header, EVENT frames (the ring-buffer record's payload, fields at their
-- format offsets), the in-band context (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST messages,
-- reassembled from fragments per scope), expert infos, and an evaluator for print fmts (C
-- expressions with the kernel's vsprintf semantics). The generator (dissector-gen,
-- org.tracewire.dissector) emits per-event tables between the two EVENT TABLES markers below; an
-- event those tables do not know is decoded from the description tree its FORMAT message carries
-- (the same schema, docs/dissector.md), so on its own this file decodes captures of any kernel.
--
-- Compatibility: Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). No bit operators, no bit32,
-- no integer division: 64-bit arithmetic uses Wireshark's UInt64/Int64, every read is
-- length-checked, capture data is never given to load(), and per-frame work runs under pcall so a
-- hostile frame yields expert info.

local TW_VERSION = "2"
-- Replaced by the generator: the format identity hash (16 hex digits) the tables were made from,
-- the traced kernel's long size, and a label of the source.
local TW_GEN_HASH = nil
local TW_LONG_SIZE = 8
local TW_GEN_SOURCE = "runtime only (no event tables)"

local tw = Proto("tracewire", "tracewire trace event")
tw.prefs.ethertype = Pref.uint("EtherType", 0x88B5, "EtherType of tracewire frames, in decimal (default 34997 = 0x88B5)")
tw.prefs.kallsyms = Pref.string("kallsyms file", "",
  "Override: the traced kernel's /proc/kallsyms (same boot) for %pS/%ps symbols, before the capture's own symbols; empty: off")
tw.prefs.printk_formats = Pref.string("printk_formats file", "",
  "Override: the traced kernel's tracefs printk_formats for %s of format-string pointers; empty: the capture's own")
tw.prefs.hz = Pref.uint("HZ", 0, "Override: the traced kernel's CONFIG_HZ for jiffies_to_msecs; 0: the capture's own")

local CAP = {}
-- Bounds of the context kept per scope (a host: an Ethernet source MAC or a pcapng interface) and
-- in total; a message beyond them is dropped with an expert info.
CAP.FORMATS = 8192          -- FORMAT messages (events) per scope
CAP.SYMBOLS = 262144        -- symbols and printk strings per scope
CAP.PROCS = 262144          -- process entries (pid -> comm, tgid; a comm change is one more) per scope
CAP.SCOPES = 256            -- scopes
CAP.MESSAGE = 4194304       -- bytes of one reassembled message
CAP.PENDING = 64            -- messages being reassembled, all scopes
CAP.PENDING_BYTES = 16777216 -- bytes held for reassembly, all scopes
CAP.CONSTANTS = 4096        -- CAPTURE constants, and BTF enum constants per FORMAT
CAP.REVISIT_BYTES = 33554432 -- reassembled messages kept to show their frames again
CAP.SCOPE_BYTES = 33554432  -- bytes of context kept per scope (formats, symbols, strings, comms)
CAP.TOTAL_BYTES = 134217728 -- the same over all scopes
CAP.TREE = 1048576          -- bytes of one description tree
local MAX_DEPTH = 64              -- description tree nesting (docs/wire-format.md 4.6)
---------------------------------------------------------------------------- header fields
local KIND_NAMES = { [0] = "EVENT", [1] = "CAPTURE", [2] = "FORMAT", [3] = "SYMBOLS", [4] = "PROCESS", [5] = "LOST" }
local HF = {
  version = ProtoField.uint8("tracewire.version", "Version", base.DEC),
  kind = ProtoField.uint8("tracewire.kind", "Kind", base.DEC, KIND_NAMES, 0x0F),
  flags = ProtoField.uint8("tracewire.flags", "Flags", base.HEX, nil, 0xF0),
  flags_le = ProtoField.bool("tracewire.flags.little_endian", "Little-endian payload", 8, nil, 0x10),
  flags_trunc = ProtoField.bool("tracewire.flags.truncated", "Truncated", 8, nil, 0x20),
  flags_raw = ProtoField.bool("tracewire.flags.raw_clock", "Raw trace clock", 8, nil, 0x40),
  flags_res = ProtoField.bool("tracewire.flags.reserved", "Reserved", 8, nil, 0x80),
  cpu = ProtoField.uint16("tracewire.cpu", "CPU", base.DEC),
  seq = ProtoField.uint32("tracewire.seq", "Sequence", base.DEC),
  time = ProtoField.absolute_time("tracewire.time", "Time", base.UTC),
  time_ns = ProtoField.uint64("tracewire.time_ns", "Time (ns since the epoch)", base.DEC),
  header = ProtoField.none("tracewire.header", "Header"),
  event_id = ProtoField.uint16("tracewire.event_id", "Event id (common_type)", base.DEC),
  common_flags = ProtoField.uint8("tracewire.common_flags", "Common flags", base.HEX),
  cf_irqs_off = ProtoField.bool("tracewire.common_flags.irqs_off", "IRQs off", 8, nil, 0x01),
  cf_resched_lazy = ProtoField.bool("tracewire.common_flags.need_resched_lazy", "Need resched (lazy)", 8, nil, 0x02),
  cf_resched = ProtoField.bool("tracewire.common_flags.need_resched", "Need resched", 8, nil, 0x04),
  cf_hardirq = ProtoField.bool("tracewire.common_flags.hardirq", "Hard IRQ", 8, nil, 0x08),
  cf_softirq = ProtoField.bool("tracewire.common_flags.softirq", "Soft IRQ", 8, nil, 0x10),
  cf_preempt_resched = ProtoField.bool("tracewire.common_flags.preempt_resched", "Preempt resched", 8, nil, 0x20),
  cf_nmi = ProtoField.bool("tracewire.common_flags.nmi", "NMI", 8, nil, 0x40),
  cf_bh_off = ProtoField.bool("tracewire.common_flags.bh_off", "BH off", 8, nil, 0x80),
  preempt_count = ProtoField.uint8("tracewire.preempt_count", "Preempt count", base.HEX),
  preempt_depth = ProtoField.uint8("tracewire.preempt_count.depth", "Preempt depth", base.DEC, nil, 0x0F),
  migrate_disable = ProtoField.uint8("tracewire.preempt_count.migrate_disable", "Migrate disable", base.DEC, nil, 0xF0),
  pid = ProtoField.int32("tracewire.pid", "PID (common_pid)", base.DEC),
  comm = ProtoField.string("tracewire.comm", "Command (comm)"),
  tgid = ProtoField.int32("tracewire.tgid", "Thread group (tgid)", base.DEC),
  event = ProtoField.string("tracewire.event", "Event"),
  text = ProtoField.string("tracewire.text", "Text"),
  payload = ProtoField.bytes("tracewire.payload", "Payload"),
  field = ProtoField.none("tracewire.field", "Field"),
  field_name = ProtoField.string("tracewire.field.name", "Name"),
  field_value = ProtoField.string("tracewire.field.value", "Value"),
  field_text = ProtoField.string("tracewire.field.text", "Text (as the kernel prints it)"),
  lost = ProtoField.uint64("tracewire.lost", "Lost events", base.DEC),
  -- context frames
  msg_id = ProtoField.uint32("tracewire.message.id", "Message id", base.DEC),
  frag_index = ProtoField.uint16("tracewire.message.fragment", "Fragment index", base.DEC),
  frag_count = ProtoField.uint16("tracewire.message.fragments", "Fragment count", base.DEC),
  msg_len = ProtoField.uint32("tracewire.message.length", "Message length", base.DEC),
  msg_frame = ProtoField.framenum("tracewire.message.reassembled_in", "Reassembled in", base.NONE),
  item = ProtoField.bytes("tracewire.item", "Item"),
  item_type = ProtoField.uint16("tracewire.item.type", "Type", base.DEC),
  capture_id = ProtoField.string("tracewire.capture.id", "Capture id"),
  capture_kernel = ProtoField.string("tracewire.capture.kernel", "Kernel release"),
  capture_host = ProtoField.string("tracewire.capture.host", "Host"),
  capture_clock = ProtoField.string("tracewire.capture.clock", "Trace clock"),
  format_id = ProtoField.uint16("tracewire.format.id", "Event id", base.DEC),
  format_name = ProtoField.string("tracewire.format.event", "Event"),
  symbol_address = ProtoField.uint64("tracewire.symbol.address", "Address", base.HEX),
  symbol_name = ProtoField.string("tracewire.symbol.name", "Symbol"),
  process_pid = ProtoField.int32("tracewire.process.pid", "PID", base.DEC),
  process_tgid = ProtoField.int32("tracewire.process.tgid", "TGID", base.DEC),
  process_comm = ProtoField.string("tracewire.process.comm", "Command"),
}

local EF = {
  lost = ProtoExpert.new("tracewire.expert.lost", "Events lost", expert.group.SEQUENCE, expert.severity.WARN),
  truncated = ProtoExpert.new("tracewire.expert.truncated", "Truncated event", expert.group.MALFORMED, expert.severity.WARN),
  unknown = ProtoExpert.new("tracewire.expert.unknown_event", "Unknown event", expert.group.UNDECODED, expert.severity.NOTE),
  no_context = ProtoExpert.new("tracewire.expert.no_context", "Event decoded without its FORMAT context",
    expert.group.UNDECODED, expert.severity.NOTE),
  malformed = ProtoExpert.new("tracewire.expert.malformed", "Malformed frame", expert.group.MALFORMED, expert.severity.ERROR),
  version = ProtoExpert.new("tracewire.expert.version", "Other wire format version", expert.group.PROTOCOL,
    expert.severity.ERROR),
  reserved = ProtoExpert.new("tracewire.expert.reserved_kind", "Reserved frame kind", expert.group.PROTOCOL,
    expert.severity.NOTE),
  cap = ProtoExpert.new("tracewire.expert.context_cap", "Context limit reached", expert.group.PROTOCOL,
    expert.severity.WARN),
  changed = ProtoExpert.new("tracewire.expert.format_changed", "FORMAT changes an event id", expert.group.PROTOCOL,
    expert.severity.NOTE),
  fragment = ProtoExpert.new("tracewire.expert.fragment", "Context fragment dropped", expert.group.REASSEMBLE,
    expert.severity.WARN),
  internal = ProtoExpert.new("tracewire.expert.internal", "Dissector internal error", expert.group.UNDECODED,
    expert.severity.ERROR),
}

-- All ProtoFields, in registration order (header fields first, then the generated ones).
local ALL_FIELDS = {}
do
  local names = {}
  for k, _ in pairs(HF) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do ALL_FIELDS[#ALL_FIELDS + 1] = HF[k] end
end

-- Latency analysis fields (generated items, as tcp.analysis): see "latency analysis" below.
local AF = {
  analysis = ProtoField.none("tracewire.analysis", "Latency analysis"),
  kind = ProtoField.string("tracewire.analysis.kind", "Kind"),
  latency = ProtoField.relative_time("tracewire.analysis.latency", "Latency"),
  latency_ns = ProtoField.uint64("tracewire.analysis.latency_ns", "Latency (ns)", base.DEC),
  start_frame = ProtoField.framenum("tracewire.analysis.start_frame", "Start frame", base.NONE,
    frametype and frametype.REQUEST or nil),
  end_frame = ProtoField.framenum("tracewire.analysis.end_frame", "End frame", base.NONE,
    frametype and frametype.RESPONSE or nil),
}
local AF_LIST = { AF.analysis, AF.kind, AF.latency, AF.latency_ns, AF.start_frame, AF.end_frame }
for k = 1, #AF_LIST do ALL_FIELDS[#ALL_FIELDS + 1] = AF_LIST[k] end

-- The pcapng interface of a USER15 record: the scope of its context (docs/wire-format.md 4).
local F_IFID = Field.new("frame.interface_id")
---------------------------------------------------------------------------- 64-bit helpers
local U = UInt64
-- The traced kernel's sizeof(long) for the frame being dissected: its scope's CAPTURE context, else
-- the generator's value (dissection is not re-entrant).
local LONG = TW_LONG_SIZE
local U0 = U.new(0, 0)
local U1 = U.new(1, 0)
local SIGNBIT = U.new(0, 0x80000000)
local MASKS = { [1] = U.new(0xff, 0), [2] = U.new(0xffff, 0), [4] = U.new(0xffffffff, 0) }

-- Raises an evaluation error (caught by the renderer, which then uses name=value).
local function fail(msg)
  error({ tw = msg }, 0)
end

-- Truncates a 64-bit pattern to size bytes and sign- or zero-extends it (Val.Int.extend).
local function ext(b, size, signed)
  local m = MASKS[size]
  if not m then return b end
  local v = b:band(m)
  if signed and v:rshift(size * 8 - 1) == U1 then
    v = v:bor(m:bnot())
  end
  return v
end

local function isneg(b) return b:higher() >= 0x80000000 end
local function tos64(b) return Int64.new(b:lower(), b:higher()) end
local function fromi64(i) return U.new(i:lower(), i:higher()) end

-- Digits of an unsigned 64-bit value in base 8, 10 or 16 (lower case).
local function digits(u, base)
  if base == 10 then return tostring(u) end
  if base == 16 then
    local h = u:tohex():gsub("^0+", "")
    if h == "" then return "0" end
    return h
  end
  if u == U0 then return "0" end
  local t = {}
  while u ~= U0 do
    t[#t + 1] = tostring(u:band(U.new(7, 0)):lower())
    u = u:rshift(3)
  end
  return string.reverse(table.concat(t))
end

-- Reads an unsigned integer of size bytes (1..8) at 0-based offset off of the Lua string s.
local function rdu(s, off, size, le)
  if off < 0 or size <= 0 or size > 8 or off + size > #s then
    fail("read of " .. size .. " bytes at " .. off .. " outside " .. #s .. " bytes")
  end
  if size == 8 then
    local a, b, c, d, e, f, g, h = s:byte(off + 1, off + 8)
    if le then return U.new(((d * 256 + c) * 256 + b) * 256 + a, ((h * 256 + g) * 256 + f) * 256 + e) end
    return U.new(((e * 256 + f) * 256 + g) * 256 + h, ((a * 256 + b) * 256 + c) * 256 + d)
  end
  if size <= 4 then
    local v = 0
    if le then
      for i = off + size, off + 1, -1 do v = v * 256 + s:byte(i) end
    else
      for i = off + 1, off + size do v = v * 256 + s:byte(i) end
    end
    return U.new(v, 0)
  end
  local lo, hi = 0, 0
  for i = 0, size - 1 do
    local byte
    if le then byte = s:byte(off + size - i) else byte = s:byte(off + 1 + i) end
    -- shift (hi,lo) left by 8 and add byte
    hi = (hi * 256 + math.floor(lo / 16777216)) % 4294967296
    lo = (lo % 16777216) * 256 + byte
  end
  return U.new(lo, hi)
end

---------------------------------------------------------------------------- values
-- Int: { k = "i", b = UInt64 bits (already extended), s = size, g = signed, p = pointer }
-- Mem: { k = "m", d = bytes (Lua string), o = 0-based offset, l = limit, es = element size, eg = signed }
-- Text: { k = "t", t = string }
local function int(b, size, signed) return { k = "i", b = ext(b, size, signed), s = size, g = signed } end
local function bool(v) if v then return int(U1, 4, true) end return int(U0, 4, true) end
local function text(t) return { k = "t", t = t } end

local function asint(v, what)
  if v.k == "i" then return v end
  fail((what or "operator") .. " needs an integer")
end

local function truth(v)
  if v.k == "i" then return v.b ~= U0 end
  return true
end

local function promote(v)
  if v.s < 4 then
    local c = v.c
    if c then
      local r = c.p
      if r == nil then r = int(v.b, 4, true); c.p = r end
      return r
    end
    return int(v.b, 4, true)
  end
  if v.p then return { k = "i", b = v.b, s = v.s, g = v.g } end
  return v
end

-- v (an integer value) as size bytes, signed or not; a constant's conversions are made once.
local function as(v, size, signed)
  if v.s == size and v.g == signed then return v end
  local c = v.c
  if c == nil then return int(v.b, size, signed) end
  local key = signed and size or -size
  local r = c[key]
  if r == nil then r = int(v.b, size, signed); c[key] = r end
  return r
end

local function convert(a, b)
  a = promote(a); b = promote(b)
  local size, signed
  if a.s == b.s then size = a.s; signed = a.g and b.g
  elseif a.s > b.s then size = a.s; signed = a.g
  else size = b.s; signed = b.g end
  return as(a, size, signed), as(b, size, signed)
end

local function cstring(m, maxb)
  local stop = m.l
  if maxb and m.o + maxb < stop then stop = m.o + maxb end
  if stop <= m.o then return "" end
  local s = m.d:sub(m.o + 1, stop)
  local z = s:find("\0", 1, true)
  if z then s = s:sub(1, z - 1) end
  return s
end

---------------------------------------------------------------------------- vsprintf
local LEFT, PLUS, SPACE, SPECIAL, ZEROPAD, SIGN, SMALL = 1, 2, 4, 8, 16, 32, 64
local MAX_WIDTH = 4096
local function has(f, b) return bit.band(f, b) ~= 0 end

-- Digits of a non-negative integer held in a Lua number (below 2^53), lower case.
local NUMFMT = { [8] = "%o", [10] = "%d", [16] = "%x" }

-- lib/vsprintf.c number(): num is the value converted to the conversion's type: a UInt64 bit
-- pattern, or a Lua number (an integer of at most 53 bits, negative only with SIGN) from the
-- evaluator's fast path.
-- flags that change a number's text without a width (the rest only act with one)
local SHOWN = PLUS + SPACE + SPECIAL
local function number(num, base, flags, width, precision)
  if width <= 0 and precision < 0 and type(num) == "number" and bit.band(flags, SHOWN) == 0
      and (num >= 0 or bit.band(flags, SIGN) ~= 0) then
    -- the common case: the digits alone
    local d = string.format(NUMFMT[base], num)
    if base == 16 and bit.band(flags, SMALL) == 0 then d = d:upper() end
    return d
  end
  if width > MAX_WIDTH then width = MAX_WIDTH end
  if precision > MAX_WIDTH then precision = MAX_WIDTH end
  local isnum = type(num) == "number"
  local needpfx = has(flags, SPECIAL) and base ~= 10
  local iszero
  if isnum then iszero = num == 0 else iszero = num == U0 end
  local locase = has(flags, SMALL)
  if has(flags, LEFT) then flags = bit.band(flags, bit.bnot(ZEROPAD)) end
  local sign = nil
  if has(flags, SIGN) then
    local neg
    if isnum then neg = num < 0 else neg = isneg(num) end
    if neg then
      sign = "-"; width = width - 1
      if isnum then num = -num else num = U0 - num end
    elseif has(flags, PLUS) then sign = "+"; width = width - 1
    elseif has(flags, SPACE) then sign = " "; width = width - 1 end
  end
  if needpfx then
    if base == 16 then width = width - 2 elseif not iszero then width = width - 1 end
  end
  local d
  if isnum then d = string.format(NUMFMT[base], num) else d = digits(num, base) end
  if not locase and base == 16 then d = d:upper() end
  local i = #d
  if i > precision then precision = i end
  width = width - precision
  -- the common case: no sign, prefix or padding
  if width <= 0 and sign == nil and not needpfx and precision == i then return d end
  local out = {}
  if not has(flags, ZEROPAD) and not has(flags, LEFT) then
    if width > 0 then out[#out + 1] = string.rep(" ", width) end
    width = 0
  end
  if sign then out[#out + 1] = sign end
  if needpfx then
    if base == 16 or not iszero then out[#out + 1] = "0" end
    if base == 16 then out[#out + 1] = locase and "x" or "X" end
  end
  if not has(flags, LEFT) then
    local c = has(flags, ZEROPAD) and "0" or " "
    if width > 0 then out[#out + 1] = string.rep(c, width) end
    width = 0
  end
  if precision > i then out[#out + 1] = string.rep("0", precision - i) end
  out[#out + 1] = d
  if width > 0 then out[#out + 1] = string.rep(" ", width) end
  return table.concat(out)
end

local function vstring(s, flags, width, precision)
  if width <= 0 and precision < 0 then return s end
  if width > MAX_WIDTH then width = MAX_WIDTH end
  if precision >= 0 and #s > precision then s = s:sub(1, precision) end
  local pad = width - #s
  if pad <= 0 then return s end
  if has(flags, LEFT) then return s .. string.rep(" ", pad) end
  return string.rep(" ", pad) .. s
end

local function hex2(b) return string.format("%02x", b) end

local ipaddr, mac, uuid, bitmap, hexstring
;(function()
local function need(m, n, what)
  if m.l - m.o < n then fail(what .. " needs " .. n .. " bytes") end
end

local function ip4(d, off, leading)
  local t = {}
  for i = 0, 3 do
    local b = d:byte(off + 1 + i)
    t[#t + 1] = leading and string.format("%03d", b) or tostring(b)
  end
  return table.concat(t, ".")
end

local function ip6full(d, off, colons)
  local t = {}
  for i = 0, 7 do
    t[#t + 1] = hex2(d:byte(off + 1 + 2 * i)) .. hex2(d:byte(off + 2 + 2 * i))
  end
  return table.concat(t, colons and ":" or "")
end

local function ip6compressed(d, off)
  local w = {}
  for i = 0, 7 do w[i] = d:byte(off + 1 + 2 * i) * 256 + d:byte(off + 2 + 2 * i) end
  local v4mapped = w[0] == 0 and w[1] == 0 and w[2] == 0 and w[3] == 0 and w[4] == 0 and w[5] == 0xffff
  local isatap = bit.bor(w[4], 0x0200) == 0x0200 and w[5] == 0x5efe
  local useipv4 = v4mapped or isatap
  local range = useipv4 and 6 or 8
  local zl = {}
  for i = 0, range - 1 do
    zl[i] = 0
    for j = i, range - 1 do
      if w[j] ~= 0 then break end
      zl[i] = zl[i] + 1
    end
  end
  local longest, colonpos = 1, -1
  for i = 0, range - 1 do
    if zl[i] > longest then longest = zl[i]; colonpos = i end
  end
  if longest == 1 then colonpos = -1 end
  local t = {}
  local needcolon = false
  local i = 0
  while i < range do
    if i == colonpos then
      if needcolon or i == 0 then t[#t + 1] = ":" end
      t[#t + 1] = ":"
      needcolon = false
      i = i + longest
    else
      if needcolon then t[#t + 1] = ":" end
      t[#t + 1] = string.format("%x", w[i])
      needcolon = true
      i = i + 1
    end
  end
  if useipv4 then
    if needcolon then t[#t + 1] = ":" end
    t[#t + 1] = ip4(d, off + 12, false)
  end
  return table.concat(t)
end

function ipaddr(m, ext, le)
  local d, off = m.d, m.o
  local kind = ext:sub(2, 2)
  local leading = ext:sub(1, 1) == "i"
  if kind == "4" then
    need(m, 4, "%p" .. ext); return ip4(d, off, leading)
  elseif kind == "6" then
    need(m, 16, "%p" .. ext)
    if not leading and ext:sub(3, 3) == "c" then return ip6compressed(d, off) end
    return ip6full(d, off, not leading)
  elseif kind == "S" then
    need(m, 2, "%p" .. ext)
    local opts = ext:sub(3)
    local family = rdu(d, off, 2, le):lower()
    local p = opts:find("p", 1, true) ~= nil
    if family == 2 then
      need(m, 8, "%p" .. ext)
      local s = ip4(d, off + 4, leading)
      if p then s = s .. ":" .. tostring(d:byte(off + 3) * 256 + d:byte(off + 4)) end
      return s
    elseif family == 10 then
      need(m, 28, "%p" .. ext)
      local f = opts:find("f", 1, true) ~= nil
      local sc = opts:find("s", 1, true) ~= nil
      local c = opts:find("c", 1, true) ~= nil
      local br = p or f or sc
      local s = (not leading and c) and ip6compressed(d, off + 8) or ip6full(d, off + 8, not leading)
      if br then s = "[" .. s .. "]" end
      if p then s = s .. ":" .. tostring(d:byte(off + 3) * 256 + d:byte(off + 4)) end
      if f then
        local flow = bit.band(d:byte(off + 5), 0x0f) * 16777216 + d:byte(off + 6) * 65536
          + d:byte(off + 7) * 256 + d:byte(off + 8)
        s = s .. "/" .. tostring(flow)
      end
      if sc then s = s .. "%" .. tostring(rdu(d, off + 24, 4, le)) end
      return s
    end
    return "(invalid address)"
  end
  fail("unsupported %p" .. ext)
end

function mac(m, ext)
  need(m, 6, "%p" .. ext)
  local rev = ext:sub(2, 2) == "R"
  local sep = ":"
  if ext:sub(1, 1) == "m" then sep = "" elseif ext:sub(2, 2) == "F" then sep = "-" end
  local t = {}
  for i = 0, 5 do
    local idx = rev and (5 - i) or i
    t[#t + 1] = hex2(m.d:byte(m.o + 1 + idx))
  end
  return table.concat(t, sep)
end

function uuid(m, ext)
  need(m, 16, "%p" .. ext)
  local k = ext:sub(2, 2)
  if k == "" then k = "b" end
  local idx
  if k == "l" or k == "L" then idx = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 }
  else idx = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 } end
  local t = {}
  for i = 0, 15 do
    t[#t + 1] = hex2(m.d:byte(m.o + 1 + idx[i + 1]))
    if i == 3 or i == 5 or i == 7 or i == 9 then t[#t + 1] = "-" end
  end
  local s = table.concat(t)
  if k == "B" or k == "L" then s = s:upper() end
  return s
end

local function bitset(m, n, le)
  local ls = LONG
  local word = math.floor(n / (ls * 8))
  local b = n % (ls * 8)
  local off = m.o + word * ls
  if off + ls > m.l then return false end
  local w = rdu(m.d, off, ls, le)
  return w:rshift(b):band(U1) == U1
end

function bitmap(m, nrbits, list, le)
  local avail = (m.l - m.o) * 8
  if nrbits > avail then nrbits = avail end
  if nrbits < 0 then nrbits = 0 end
  if nrbits > 1048576 then nrbits = 1048576 end
  if list then
    local t = {}
    local i = 0
    while i < nrbits do
      if not bitset(m, i, le) then
        i = i + 1
      else
        local j = i
        while j + 1 < nrbits and bitset(m, j + 1, le) do j = j + 1 end
        if j > i then t[#t + 1] = i .. "-" .. j else t[#t + 1] = tostring(i) end
        i = j + 1
      end
    end
    return table.concat(t, ",")
  end
  local t = {}
  local chunksz = nrbits % 32
  if chunksz == 0 then chunksz = 32 end
  local i = math.floor((nrbits + 31) / 32) * 32 - 32
  while i >= 0 do
    local val = 0
    for b = chunksz - 1, 0, -1 do
      val = val * 2 + (bitset(m, i + b, le) and 1 or 0)
    end
    t[#t + 1] = number(U.new(val, 0), 16, SMALL + ZEROPAD, math.floor((chunksz + 3) / 4), -1)
    chunksz = 32
    i = i - 32
  end
  return table.concat(t, ",")
end

function hexstring(m, ext, width)
  local len = width < 0 and 1 or math.min(width, 64)
  len = math.min(len, m.l - m.o)
  local sepc = ext:sub(2, 2)
  local sep = " "
  if sepc == "C" then sep = ":" elseif sepc == "D" then sep = "-" elseif sepc == "N" then sep = "" end
  local t = {}
  for i = 0, len - 1 do t[#t + 1] = hex2(m.d:byte(m.o + 1 + i)) end
  return table.concat(t, sep)
end
end)()
---------------------------------------------------------------------------- host overrides
-- Overrides (preferences) of what the capture's context says: the traced kernel's /proc/kallsyms
-- for %pS and friends, its printk_formats for %s of a format-string pointer, and its CONFIG_HZ
-- for jiffies_to_msecs. Off by default: the capture carries its own (SYMBOLS, CAPTURE), and a file
-- from another boot or host would be resolved wrongly.
local symbols, lookupsym, ctxsym, printk
local function hex16(u) return u:tohex() end
;(function()
local SYMS = nil        -- { addrs = { "16 hex digits" }, names = {}, mods = {}, sizes = { UInt64 } }
local SYMS_PATH = nil
local PRINTK = nil      -- { ["16 hex digits"] = string }
local PRINTK_PATH = nil

local function loadsyms(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local list = {}
  local n = 0
  for line in f:lines() do
    local a, _, name, rest = line:match("^(%x+)%s+(%S+)%s+(%S+)%s*(.*)$")
    if a and #a <= 16 then
      a = string.rep("0", 16 - #a) .. a:lower()
      if a ~= "0000000000000000" then
        local mod = rest and rest:match("^%[(.-)%]") or nil
        n = n + 1
        list[n] = { a, n, name, mod }
      end
    end
  end
  f:close()
  table.sort(list, function(x, y) return x[1] < y[1] or (x[1] == y[1] and x[2] < y[2]) end)
  local t = { addrs = {}, names = {}, mods = {}, sizes = {} }
  local m = 0
  for i = 1, n do
    local e = list[i]
    if m == 0 or t.addrs[m] ~= e[1] then
      m = m + 1
      t.addrs[m] = e[1]; t.names[m] = e[3]; t.mods[m] = e[4]
    end
  end
  for i = 1, m do
    if i < m then t.sizes[i] = U.fromhex(t.addrs[i + 1]) - U.fromhex(t.addrs[i])
    else t.sizes[i] = U1 end
  end
  return t
end

function symbols()
  local path = tw.prefs.kallsyms
  if path == nil or path == "" then return nil end
  if SYMS_PATH ~= path then SYMS = loadsyms(path); SYMS_PATH = path end
  return SYMS
end

function lookupsym(t, addr)
  local key = hex16(addr)
  local lo, hi, found = 1, #t.addrs, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if t.addrs[mid] <= key then found = mid; lo = mid + 1 else hi = mid - 1 end
  end
  if not found then return nil end
  local start = U.fromhex(t.addrs[found])
  local off = addr - start
  if not (off < t.sizes[found]) then return nil end
  return t.names[found], off, t.sizes[found], t.mods[found]
end

-- The capture's own symbol for addr (SYMBOLS context of scope cx): name, offset, size, module;
-- false when the sender found none; nil when it sent nothing about the address. For %pB
-- (backtrace) the symbol covering addr - 1, as the kernel's sprint_backtrace looks it up.
function ctxsym(cx, addr, backtrace)
  local syms = cx.syms
  local look = backtrace and (addr - U1) or addr
  local e = syms[hex16(look)]
  if e == nil and backtrace then e = syms[hex16(addr)] end
  if e == nil or e == false then return e end
  local off = look - e[2]
  if look < e[2] or not (off < e[3]) then return nil end
  return e[1], off, e[3], e[4]
end

local function unescape_c(s)
  local map = { n = "\n", t = "\t", r = "\r", a = "\a", b = "\b", f = "\f", v = "\v", e = "\27" }
  return (s:gsub("\\([0-7][0-7]?[0-7]?)", function(o) return string.char(tonumber(o, 8) % 256) end)
    :gsub("\\(.)", function(c) return map[c] or c end))
end

function printk()
  local path = tw.prefs.printk_formats
  if path == nil or path == "" then return nil end
  if PRINTK_PATH ~= path then
    PRINTK_PATH = path
    PRINTK = nil
    local f = io.open(path, "r")
    if f then
      PRINTK = {}
      for line in f:lines() do
        local a, body = line:match('^0x(%x+) : "(.*)"$')
        if a and #a <= 16 then
          a = string.rep("0", 16 - #a) .. a:lower()
          if PRINTK[a] == nil then PRINTK[a] = unescape_c(body) end
        end
      end
      f:close()
    end
  end
  return PRINTK
end
end)()
---------------------------------------------------------------------------- evaluator
-- Node tags of the evaluator's internal form, made once per event from the generated print table
-- (see compileprint below): { tag, ... } with positional operands.
local N_LIT, N_STR, N_FLD, N_ERR, N_IDX, N_UN, N_BIN, N_TERN, N_CAST, N_CALL, N_BRACE, N_SIZEOF, N_IDENT =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
-- Fields whose bytes sit behind a __data_loc/__rel_loc word.
local DYNAMIC = { dynamic_string = true, dynamic_array = true, dynamic_cpumask = true }

local byte, sub, find = string.byte, string.sub, string.find
local POW = { [1] = 256, [2] = 65536, [4] = 4294967296 }
local HALF = { [1] = 128, [2] = 32768, [4] = 2147483648 }
local FASTBASE = { d = 10, i = 10, u = 10, o = 8, x = 16, X = 16 }
-- The fast path's conversion (assigned by the "fast evaluator" section below).
local fastconv
local eval, fastfield, span, render, entrynums, segtext
;(function()

-- ctx: { ev = event, s = the frame (a Lua string), b = 0-based offset of the payload in s,
-- pl = payload length, le = payload byte order, pd = the payload as its own string (made on first
-- use: Mem values index it from 0 as the Java EventRecord does), cx = the scope's context or nil }
local function payload(ctx)
  local d = ctx.pd
  if d == nil then
    d = sub(ctx.s, ctx.b + 1, ctx.b + ctx.pl)
    ctx.pd = d
  end
  return d
end

-- Where field f's bytes are in the payload: offset, length (dynamic fields through their location
-- word, flexible arrays to the payload's end); fails when they lie outside the payload.
function span(ctx, f)
  local off, size, pl = f.offset, f.size, ctx.pl
  if DYNAMIC[f.kind] then
    if off + 4 > pl then fail("field " .. f.name .. " outside the record") end
    local w = rdu(ctx.s, ctx.b + off, 4, ctx.le):lower()
    local dlen = math.floor(w / 65536)
    local doff = w % 65536
    if f.rel then doff = doff + off + 4 end
    if doff + dlen > pl then fail("field " .. f.name .. " data outside the record") end
    return doff, dlen
  end
  if size == 0 and f.kind ~= "int" and f.kind ~= "pointer" then
    if off > pl then fail("field " .. f.name .. " outside the record") end
    return off, pl - off
  end
  if off + size > pl then fail("field " .. f.name .. " outside the record") end
  return off, size
end

local function fieldval(ctx, i)
  local f = ctx.ev.f[i]
  if not f then fail("no field " .. i) end
  local kind, size, signed = f.kind, f.size, f.signed
  if kind == "int" or kind == "pointer" then
    if size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8 then fail("field size " .. size) end
    if f.offset + size > ctx.pl then fail("field " .. f.name .. " outside the record") end
    local b = rdu(ctx.s, ctx.b + f.offset, size, ctx.le)
    if kind == "int" then return int(b, size, signed) end
    return { k = "i", b = b, s = size, g = false, p = true }
  end
  local off, len = span(ctx, f)
  local es = 1
  if kind ~= "char_array" and kind ~= "opaque" then
    es = f.elem_size or 1
    if es < 1 then es = 1 end
  end
  return { k = "m", d = payload(ctx), o = off, l = off + len, es = es, eg = signed }
end

local function index(ctx, base, idx)
  if base.k == "m" then
    local off = base.o + idx * base.es
    if idx < 0 or off + base.es > base.l then fail("index outside an array") end
    return int(rdu(base.d, off, base.es, ctx.le), base.es, base.eg)
  elseif base.k == "t" then
    if idx < 0 or idx > #base.t then fail("index outside a string") end
    if idx == #base.t then return int(U0, 1, true) end
    return int(U.new(base.t:byte(idx + 1), 0), 1, true)
  end
  fail("cannot index a value that does not point into the record")
end

local function tonum(v)
  local i = asint(v, "index")
  -- math.floor: an integer (not a float) under Lua 5.4, for string.rep/sub and indexes
  if isneg(i.b) then return math.floor(tos64(i.b):tonumber()) end
  return math.floor(i.b:tonumber())
end

local function cmp(x, y, signed)
  if signed then x = x:bxor(SIGNBIT); y = y:bxor(SIGNBIT) end
  if x == y then return 0 elseif x < y then return -1 else return 1 end
end

local function binary(ctx, n)
  local op = n[2]
  if op == "&&" then return bool(truth(eval(ctx, n[3])) and truth(eval(ctx, n[4]))) end
  if op == "||" then return bool(truth(eval(ctx, n[3])) or truth(eval(ctx, n[4]))) end
  if op == "," then eval(ctx, n[3]); return eval(ctx, n[4]) end
  local lv = eval(ctx, n[3])
  local rv = eval(ctx, n[4])
  local ln = n[3]
  if ln[1] == N_CAST and ln[3] and lv.k == "i" and lv.p and rv.k == "i" and (op == "+" or op == "-") then
    -- C pointer arithmetic on a kernel address: scaled by the pointee's size; a struct's size comes
    -- from the capture's constants (sizeof(struct page)), else the record falls back
    local size = ln[6]
    if ln[9] then
      size = ctx.cx and ctx.cx.typesizes[ln[9]]
      if not size or size <= 0 then fail("size of struct " .. ln[9] .. " unknown for pointer arithmetic") end
    end
    local scaled = rv.b * U.new(size, 0)
    local r
    if op == "+" then r = lv.b + scaled else r = lv.b - scaled end
    return { k = "i", b = ext(r, LONG, false), s = LONG, g = false, p = true }
  end
  if lv.k == "m" and rv.k == "i" and (op == "+" or op == "-") then
    local d = tonum(rv)
    if op == "-" then d = -d end
    local off = lv.o + d * lv.es
    if off < 0 or off > lv.l then fail("pointer arithmetic leaves the record") end
    return { k = "m", d = lv.d, o = off, l = lv.l, es = lv.es, eg = lv.eg }
  end
  local l = asint(lv, "operator " .. op)
  local r = asint(rv, "operator " .. op)
  if op == "<<" or op == ">>" then
    local pl = promote(l)
    local bits = pl.s * 8
    local c = promote(r).b:band(U.new(bits - 1, 0)):lower()
    local res
    if op == "<<" then res = pl.b:lshift(c)
    elseif pl.g then res = pl.b:arshift(c)
    else res = pl.b:rshift(c) end
    return int(res, pl.s, pl.g)
  end
  local a, b = convert(l, r)
  local x, y, size, signed = a.b, b.b, a.s, a.g
  if op == "+" then return int(x + y, size, signed)
  elseif op == "-" then return int(x - y, size, signed)
  elseif op == "*" then return int(x * y, size, signed)
  elseif op == "/" or op == "%" then
    if y == U0 then fail("division by zero") end
    local res
    if signed then
      if x == SIGNBIT and y == U0 - U1 then
        res = (op == "/") and x or U0
      elseif op == "/" then res = fromi64(tos64(x) / tos64(y))
      else res = fromi64(tos64(x) % tos64(y)) end
      -- C truncates toward zero; Int64 % follows C (sign of the dividend)
    else
      if op == "/" then res = x / y else res = x % y end
    end
    return int(res, size, signed)
  elseif op == "&" then return int(x:band(y), size, signed)
  elseif op == "|" then return int(x:bor(y), size, signed)
  elseif op == "^" then return int(x:bxor(y), size, signed)
  end
  local c = cmp(x, y, signed)
  if op == "==" then return bool(c == 0)
  elseif op == "!=" then return bool(c ~= 0)
  elseif op == "<" then return bool(c < 0)
  elseif op == "<=" then return bool(c <= 0)
  elseif op == ">" then return bool(c > 0)
  elseif op == ">=" then return bool(c >= 0) end
  fail("unknown operator " .. tostring(op))
end

local function addressof(ctx, e)
  if e[1] == N_IDX then
    local base = eval(ctx, e[2])
    local idx = tonum(eval(ctx, e[3]))
    if base.k == "m" then
      local off = base.o + idx * base.es
      if idx < 0 or off > base.l then fail("index outside an array") end
      return { k = "m", d = base.d, o = off, l = base.l, es = base.es, eg = base.eg }
    end
  end
  if e[1] == N_FLD then
    local f = ctx.ev.f[e[2]]
    if f and f.kind ~= "pointer" then
      if f.kind == "int" then
        if f.offset + f.size > ctx.pl then fail("field outside the record") end
        return { k = "m", d = payload(ctx), o = f.offset, l = f.offset + f.size, es = f.size, eg = f.signed }
      end
      local v = eval(ctx, e)
      if v.k == "m" then return v end
    end
  end
  fail("cannot take this address")
end

local function unary(ctx, n)
  local op = n[2]
  if op == "!" then return bool(not truth(eval(ctx, n[3]))) end
  if op == "&" then return addressof(ctx, n[3]) end
  if op == "*" then return index(ctx, eval(ctx, n[3]), 0) end
  local v = promote(asint(eval(ctx, n[3]), "operator " .. op))
  if op == "-" then return int(U0 - v.b, v.s, v.g) end
  if op == "~" then return int(v.b:bnot(), v.s, v.g) end
  return v
end

local function ternary(ctx, n)
  local c = truth(eval(ctx, n[2]))
  local chosen = eval(ctx, c and n[3] or n[4])
  if chosen.k == "i" and not chosen.p then
    local ok, other = pcall(eval, ctx, c and n[4] or n[3])
    if not ok then return chosen end
    if other.k == "i" and not other.p then
      if c then local a, _ = convert(chosen, other); return a end
      local _, b = convert(other, chosen); return b
    end
  end
  return chosen
end

-- {N_CAST, operand, pointer, size, signed, pointeeSize, pointeeSigned, special("bool"/"void"/"")}
local function cast(ctx, n)
  local v = eval(ctx, n[2])
  if n[3] then
    if v.k == "m" then
      local es = n[6]
      if es <= 0 then es = 1 end
      return { k = "m", d = v.d, o = v.o, l = v.l, es = es, eg = n[7] }
    end
    if v.k == "t" then return v end
    return { k = "i", b = ext(v.b, LONG, false), s = LONG, g = false, p = true }
  end
  if n[8] == "void" then return int(U0, 4, true) end
  if v.k == "i" then
    if n[8] == "bool" then if v.b ~= U0 then return int(U1, 1, false) end return int(U0, 1, false) end
    if n[4] < 0 then return v end
    return int(v.b, n[4], n[5])
  end
  fail("cannot cast this value")
end

local function dyn(ctx, n)
  if n[1] ~= N_FLD then fail("helper needs a field name") end
  local f = ctx.ev.f[n[2]]
  if not f or not DYNAMIC[f.kind] then fail("field is not a dynamic array") end
  local v = fieldval(ctx, n[2])
  return v
end

local function entryname(ctx, e)
  local v = eval(ctx, e[3])
  if v.k ~= "t" then fail("entry name is not a string") end
  return v.t
end

-- The entries of a __print_flags/__print_symbolic call node n (from index first) as Lua numbers
-- when every value is a constant below 2^32 (after the same truncation to a long the loops
-- below apply): { [k] = number }, made once per node; false when not possible.
local ENTRYNUMS = setmetatable({}, { __mode = "k" })
function entrynums(n, first, u64)
  local r = ENTRYNUMS[n]
  if r ~= nil then return r end
  r = {}
  local i = first
  while n[i] ~= nil do
    local e = n[i]
    if e[1] ~= N_BRACE or #e ~= 3 or e[2][1] ~= N_LIT or e[2][2].k ~= "i" then r = false; break end
    local m = e[2][2].b
    if not u64 then m = ext(m, LONG, false) end
    if m:higher() ~= 0 then r = false; break end
    r[i] = m:lower()
    i = i + 1
  end
  ENTRYNUMS[n] = r
  return r
end

local function printflags(ctx, n, u64)
  local flags = asint(eval(ctx, n[3]), "__print_flags").b
  if not u64 then flags = ext(flags, LONG, false) end
  local dv = eval(ctx, n[4])
  local delim = nil
  if dv.k == "t" then delim = dv.t elseif dv.k == "m" then delim = cstring(dv, 4096) end
  local t = {}
  local first, unknown = true, false
  local nums = flags:higher() == 0 and entrynums(n, 5, u64)
  if nums then
    -- the same loop on Lua numbers (32 bits; bit.band's result taken modulo 2^32)
    local fl = flags:lower()
    local i = 5
    while n[i] ~= nil and fl ~= 0 do
      local m = nums[i]
      if bit.band(fl, m) % 4294967296 == m then
        local s = entryname(ctx, n[i])
        fl = fl - m
        if not first and delim then t[#t + 1] = delim else first = false end
        t[#t + 1] = s
      end
      i = i + 1
    end
    if fl ~= 0 then
      if not first and delim then t[#t + 1] = delim end
      t[#t + 1] = "0x" .. string.format("%x", fl)
    end
    return text(table.concat(t))
  end
  local i = 5
  while n[i] ~= nil and flags ~= U0 do
    local e = n[i]
    if e[1] ~= N_BRACE or #e ~= 3 then fail("entries must be { value, name }") end
    local ok, mv = pcall(eval, ctx, e[2])
    if not ok or mv.k ~= "i" then
      unknown = true
    else
      local mask = mv.b
      if not u64 then mask = ext(mask, LONG, false) end
      if flags:band(mask) == mask then
        local s = entryname(ctx, e)
        flags = flags:band(mask:bnot())
        if not first and delim then t[#t + 1] = delim else first = false end
        t[#t + 1] = s
      end
    end
    i = i + 1
  end
  if flags ~= U0 then
    if unknown then fail("flag table has unresolved names") end
    if not first and delim then t[#t + 1] = delim end
    t[#t + 1] = "0x" .. digits(flags, 16)
  end
  return text(table.concat(t))
end

local SYMMAPS = setmetatable({}, { __mode = "k" })
local function printsymbolic(ctx, n, u64)
  local val = asint(eval(ctx, n[3]), "__print_symbolic").b
  if not u64 then val = ext(val, LONG, false) end
  if val:higher() == 0 then
    -- constant entries below 2^32: one table lookup ({ [value] = index of its first entry })
    local map = SYMMAPS[n]
    if map == nil then
      map = false
      local nums = entrynums(n, 4, u64)
      if nums then
        map = {}
        for i = #n, 4, -1 do map[nums[i]] = i end
      end
      SYMMAPS[n] = map
    end
    if map then
      local i = map[val:lower()]
      if i then
        local s = entryname(ctx, n[i])
        if s ~= "" then return text(s) end
      end
      return text("0x" .. digits(val, 16))
    end
  end
  local unknown = false
  local i = 4
  while n[i] ~= nil do
    local e = n[i]
    if e[1] ~= N_BRACE or #e ~= 3 then fail("entries must be { value, name }") end
    local ok, kv = pcall(eval, ctx, e[2])
    if not ok or kv.k ~= "i" then
      unknown = true
    else
      local key = kv.b
      if not u64 then key = ext(key, LONG, false) end
      if key == val then
        local s = entryname(ctx, e)
        if s ~= "" then return text(s) end
        break
      end
    end
    i = i + 1
  end
  if unknown then fail("symbol table has unresolved names") end
  return text("0x" .. digits(val, 16))
end

local function nargs(n, k) if #n - 2 ~= k then fail(tostring(n[2]) .. " takes " .. k .. " argument(s)") end end

local function memarg(ctx, e)
  local v = eval(ctx, e)
  if v.k ~= "m" then fail("needs a pointer into the record") end
  return v
end

local function hexdump(m, len, concat)
  if len < 0 or len > m.l - m.o then fail("hex dump outside the record") end
  local t = {}
  for i = 0, len - 1 do t[#t + 1] = hex2(m.d:byte(m.o + 1 + i)) end
  return table.concat(t, concat and "" or " ")
end

local function printarray(ctx, m, count, el)
  if el ~= 1 and el ~= 2 and el ~= 4 and el ~= 8 then fail("array element size") end
  if count < 0 or count * el > m.l - m.o then fail("array outside the record") end
  local t = {}
  for i = 0, count - 1 do
    t[#t + 1] = "0x" .. digits(rdu(m.d, m.o + i * el, el, ctx.le), 16)
  end
  return "{" .. table.concat(t, ",") .. "}"
end

local function call(ctx, n)
  local name = n[2]
  if name == "__get_str" or name == "__get_rel_str" or name == "__get_dynamic_array"
    or name == "__get_rel_dynamic_array" or name == "__get_sockaddr" or name == "__get_rel_sockaddr" then
    nargs(n, 1); return dyn(ctx, n[3])
  elseif name == "__get_dynamic_array_len" or name == "__get_rel_dynamic_array_len" then
    nargs(n, 1); local m = dyn(ctx, n[3]); return int(U.new(m.l, 0), 4, false)
  elseif name == "__get_bitmask" or name == "__get_rel_bitmask" or name == "__get_cpumask"
    or name == "__get_rel_cpumask" then
    nargs(n, 1); local m = dyn(ctx, n[3]); return text(bitmap(m, (m.l - m.o) * 8, false, ctx.le))
  elseif name == "__print_flags" or name == "__print_flags_u64" then
    if #n < 4 then fail("__print_flags needs a value and a delimiter") end
    return printflags(ctx, n, name == "__print_flags_u64")
  elseif name == "__print_symbolic" or name == "__print_symbolic_u64" then
    if #n < 3 then fail("__print_symbolic needs a value") end
    return printsymbolic(ctx, n, name == "__print_symbolic_u64")
  elseif name == "__print_hex" or name == "__print_hex_str" then
    nargs(n, 2)
    local m = memarg(ctx, n[3])
    local len = tonum(eval(ctx, n[4]))
    return text(hexdump(m, len, name == "__print_hex_str"))
  elseif name == "__print_array" then
    nargs(n, 3)
    local m = memarg(ctx, n[3])
    return text(printarray(ctx, m, tonum(eval(ctx, n[4])), tonum(eval(ctx, n[5]))))
  elseif name == "__print_dynamic_array" then
    nargs(n, 2)
    local m = dyn(ctx, n[3])
    local el = tonum(eval(ctx, n[4]))
    if el <= 0 then fail("bad element size") end
    return text(printarray(ctx, m, math.floor((m.l - m.o) / el), el))
  elseif name == "__print_ns_to_secs" then
    nargs(n, 1)
    return int(asint(eval(ctx, n[3])).b / U.new(1000000000, 0), 8, false)
  elseif name == "__print_ns_without_secs" then
    nargs(n, 1)
    return int(asint(eval(ctx, n[3])).b % U.new(1000000000, 0), 4, false)
  elseif name == "jiffies_to_msecs" then
    nargs(n, 1)
    local hz = tw.prefs.hz or 0
    if hz <= 0 and ctx.cx then hz = ctx.cx.hz or 0 end
    if hz <= 0 then fail("jiffies_to_msecs needs HZ") end
    local j = asint(eval(ctx, n[3])).b
    if LONG ~= 8 then j = j:band(MASKS[4]) end
    local r
    if hz <= 1000 and 1000 % hz == 0 then r = j * U.new(math.floor(1000 / hz), 0)
    elseif hz > 1000 and hz % 1000 == 0 then
      local d = U.new(math.floor(hz / 1000), 0); r = (j + d - U1) / d
    else r = (j * U.new(1000, 0)) / U.new(hz, 0) end
    return int(r, 4, false)
  elseif name == "__builtin_expect" then
    nargs(n, 2); return eval(ctx, n[3])
  elseif name == "__builtin_constant_p" then
    return int(U0, 4, true)
  end
  fail("unknown helper " .. tostring(name))
end

-- An identifier the generator could not resolve: a kernel variable from the capture's constants
-- (CAPTURE, e.g. vmemmap_base: an unsigned long), else an enum constant the event's FORMAT carries
-- (an int, widened as gcc widens an enum), else the record falls back (Evaluator's order).
local function ident(ctx, name)
  local cx = ctx.cx
  local v = cx and cx.consts[name]
  if v ~= nil then return { k = "i", b = ext(v, LONG, false), s = LONG, g = false } end
  local en = ctx.ev.enums
  v = en and en[name]
  if v == nil then fail("unresolved identifier " .. tostring(name)) end
  local hi, lo = v:higher(), v:lower()
  if (hi == 0 and lo < 2147483648) or (hi == 4294967295 and lo >= 2147483648) then return int(v, 4, true) end
  if hi == 0 then return int(v, 4, false) end
  return int(v, 8, hi >= 2147483648)
end

eval = function(ctx, n)
  local t = n[1]
  if t == N_LIT then return n[2]
  elseif t == N_STR then return n[3]
  elseif t == N_FLD then return fieldval(ctx, n[2])
  elseif t == N_ERR then fail(n[2])
  elseif t == N_IDX then return index(ctx, eval(ctx, n[2]), tonum(eval(ctx, n[3])))
  elseif t == N_UN then return unary(ctx, n)
  elseif t == N_BIN then return binary(ctx, n)
  elseif t == N_TERN then return ternary(ctx, n)
  elseif t == N_CAST then return cast(ctx, n)
  elseif t == N_CALL then return call(ctx, n)
  elseif t == N_IDENT then return ident(ctx, n[2])
  elseif t == N_BRACE then fail("brace list outside a print table")
  elseif t == N_SIZEOF then
    local v = eval(ctx, n[2])
    if v.k == "i" then return int(U.new(v.s, 0), LONG, false) end
    if v.k == "m" and n[2][1] == N_IDX then return int(U.new(v.es, 0), LONG, false) end
    fail("sizeof of this expression is not supported")
  end
  fail("unknown expression")
end

-- Compiled conversion: { flag bits, width, precision, size, conv, ext, text }; width/precision -1
-- absent, -2 '*'.
local function stringof(ctx, v, precision)
  if v.k == "t" then return v.t end
  if v.k == "m" then return cstring(v, precision >= 0 and precision or nil) end
  if v.b == U0 then return "(null)" end
  local key = hex16(v.b)
  local pk = printk()
  local str = pk and pk[key]
  if str == nil and ctx.cx then str = ctx.cx.printk[key] end
  if str == nil then fail("string pointer not in printk_formats") end
  return str
end

local function pointer(ctx, c, flags, width, precision, v)
  local e = c[6]
  local k = e:sub(1, 1)
  if k == "" or k == "x" then
    if v.k ~= "i" then fail("the address is not known") end
    if width < 0 then width = 2 * LONG; flags = bit.bor(flags, ZEROPAD) end
    return number(ext(v.b, LONG, false), 16, bit.bor(flags, SMALL), width, precision)
  elseif k == "S" or k == "s" or k == "B" or k == "F" or k == "f" then
    if v.k ~= "i" then fail("the address is not known") end
    local t = symbols()
    local addr = ext(v.b, LONG, false)
    local name, off, size, mod
    local known = false
    if t then
      name, off, size, mod = lookupsym(t, (k == "B") and (addr - U1) or addr)
      known = true
    end
    if name == nil and ctx.cx then
      name, off, size, mod = ctxsym(ctx.cx, addr, k == "B")
      if name ~= nil then known = true end
    end
    local s
    if name == false or name == nil then
      if not known and name == nil and addr ~= U0 then fail("%p" .. e .. ": the capture has no symbol for this address") end
      s = "0x" .. digits(addr, 16)
    else
      s = name
      if k == "S" or k == "B" or k == "F" then
        if k == "B" then off = off + U1 end
        s = s .. "+0x" .. digits(off, 16) .. "/0x" .. digits(size, 16)
      end
      if mod then s = s .. " [" .. mod .. "]" end
    end
    return vstring(s, flags, width, precision)
  end
  if v.k == "i" and v.b == U0 and (k == "M" or k == "m" or k == "I" or k == "i" or k == "U" or k == "b" or k == "h") then
    if k == "b" or k == "h" then return "(null)" end
    return vstring("(null)", flags, width, precision)
  end
  if v.k ~= "m" then fail("needs memory inside the record") end
  if k == "M" or k == "m" then return vstring(mac(v, e), flags, width, precision)
  elseif k == "I" or k == "i" then return vstring(ipaddr(v, e, ctx.le), flags, width, precision)
  elseif k == "U" then return vstring(uuid(v, e), flags, width, precision)
  elseif k == "b" then return bitmap(v, width < 0 and 0 or width, e:sub(2, 2) == "l", ctx.le)
  elseif k == "h" then return hexstring(v, e, width)
  end
  fail("unsupported pointer extension")
end

-- 2^(8 * size) and 2^(8 * size - 1) for the integer sizes the fast path handles.
local BASES = { d = 10, i = 10, u = 10, o = 8, x = 16, X = 16 }

-- The text of a conversion whose argument is field fi itself, computed with Lua numbers and
-- strings (no UInt64, no value tables): %s of a char array, and %d %i %u %o %x %X %c of an
-- integer field of 1, 2 or 4 bytes. Returns nil when the slow path must decide (anything else,
-- or a field missing or of the wrong length: the slow path then reports the error).
fastfield = function(ctx, fi, conv, csize, flags, width, precision, c11)
  local f = ctx.ev.f[fi]
  if f == nil then return nil end
  local kind, size, off = f.kind, f.size, f.offset
  local ps = ctx.s
  if conv == "s" then
    if kind ~= "char_array" then return nil end
    local stop = ctx.pl
    if size > 0 then
      if off + size > stop then return nil end
      stop = off + size
    elseif off > stop then return nil end
    local b = ctx.b
    local d
    local z = find(ps, "\0", b + off + 1, true)
    if z and z <= b + stop then d = sub(ps, b + off + 1, z - 1) else d = sub(ps, b + off + 1, b + stop) end
    return vstring(d, flags, width, precision)
  end
  if kind ~= "int" or POW[size] == nil or off + size > ctx.pl then return nil end
  local o = ctx.b + off
  local u
  if size == 4 then
    local a, b, c, d = byte(ps, o + 1, o + 4)
    if ctx.le then u = ((d * 256 + c) * 256 + b) * 256 + a else u = ((a * 256 + b) * 256 + c) * 256 + d end
  elseif size == 1 then
    u = byte(ps, o + 1)
  else
    local a, b = byte(ps, o + 1, o + 2)
    if ctx.le then u = b * 256 + a else u = a * 256 + b end
  end
  if f.signed and u >= HALF[size] then u = u - POW[size] end
  if conv == "c" then
    return vstring(string.char(u % 256), flags, width, -1)
  end
  local base = BASES[conv]
  if base == nil then return nil end
  local signed = base == 10 and conv ~= "u"
  -- the value as the conversion's type (size csize, signed for %d %i)
  if csize == 8 then
    if u < 0 and not signed then return nil end
  else
    local p = POW[csize]
    if p == nil then return nil end
    u = u % p
    if signed and u >= HALF[csize] then u = u - p end
  end
  -- without width, precision or shown flags C's printf does what vsprintf does (c[11])
  if c11 then return string.format(c11, u) end
  if conv == "x" then flags = bit.bor(flags, SMALL) end
  if signed then flags = bit.bor(flags, SIGN) end
  return number(u, base, flags, width, precision)
end

-- The text of conversion c whose argument has a closure on Lua numbers (c[9], type c[10]: see
-- "fast evaluator"); nil when the general evaluator must decide.

-- Renders a compiled print fmt: pf = { segments, args } (compileprint), after the text head.
local OUT = {}
function render(ctx, pf, head)
  local segs, args = pf[1], pf[2]
  local out, no = OUT, 1
  out[1] = head
  local ai = 1
  for si = 1, #segs do
    local c = segs[si]
    if type(c) == "string" then
      no = no + 1; out[no] = c
    else
      local flags, width, precision = c[1], c[2], c[3]
      if width == -2 then
        local w = tonum(int(asint(eval(ctx, args[ai]), "width").b, 4, true)); ai = ai + 1
        if w < 0 then flags = bit.bor(flags, LEFT); w = -w end
        width = math.min(w, MAX_WIDTH)
      end
      if precision == -2 then
        local p = tonum(int(asint(eval(ctx, args[ai]), "precision").b, 4, true)); ai = ai + 1
        precision = math.max(0, math.min(p, MAX_WIDTH))
      end
      local a = args[ai]; ai = ai + 1
      if a == nil then fail("too few arguments") end
      local conv = c[5]
      -- fast path: the argument is a field of the record (c[8]) printed as it is
      local fast = nil
      local fi = c[8]
      if fi then fast = fastfield(ctx, fi, conv, c[4], flags, width, precision, c[11]) end
      if fast == nil and c[9] then fast = fastconv(ctx, c, conv, flags, width, precision) end
      if fast then
        no = no + 1; out[no] = fast
      else
      local v = eval(ctx, a)
      if conv == "c" then
        local ch = asint(v, c[7]).b:band(MASKS[1]):lower()
        no = no + 1; out[no] = vstring(string.char(ch), flags, width, -1)
      elseif conv == "s" then
        no = no + 1; out[no] = vstring(stringof(ctx, v, precision), flags, width, precision)
      elseif conv == "p" then
        no = no + 1; out[no] = pointer(ctx, c, flags, width, precision, v)
      else
        local i = asint(v, c[7])
        local signed = conv == "d" or conv == "i"
        local num = ext(i.b, c[4], signed)
        local base = 10
        if conv == "o" then base = 8
        elseif conv == "x" then base = 16; flags = bit.bor(flags, SMALL)
        elseif conv == "X" then base = 16 end
        if signed then flags = bit.bor(flags, SIGN) end
        no = no + 1; out[no] = number(num, base, flags, width, precision)
      end
      end
    end
  end
  return table.concat(out, "", 1, no)
end

-- The text segments first..last printed in the last render (each segment is one piece after the head).
function segtext(first, last)
  return table.concat(OUT, "", first + 1, last + 1)
end
end)()
---------------------------------------------------------------------------- fast evaluator
-- Most print fmt arguments are integer expressions on a record's fields whose values are small:
-- these are compiled (once per event, from the evaluator's nodes) into closures that compute with
-- Lua numbers, no UInt64 and no value tables: per frame they allocate nothing. C's types are
-- static, so each closure has one: "i" (an integer of size bytes, signed or not) or "t" (text).
-- A closure returns nil when it cannot give the exact C result with numbers (a 64-bit value
-- beyond 2^53, a division, a field outside the record, ...): the conversion is then evaluated by
-- the general evaluator above, so results are the same either way.
local fastc, fastwrap
;(function()
  local P32, P31, P53 = 4294967296, 2147483648, 9007199254740992
  local floor = math.floor
  local band, bor, bxor = bit.band, bit.bor, bit.bxor
  local POW8 = { [1] = 256, [2] = 65536, [4] = P32 }

  -- v (an exact integer, |v| <= 2^53) as C type (size, signed); nil when not a Lua number then.
  local function wrap(v, size, signed)
    if v == nil then return nil end
    if size == 8 then
      if v < 0 and not signed then return nil end
      if v > P53 or v < -P53 then return nil end
      return v
    end
    local m = POW8[size]
    v = v % m
    if signed and v >= m / 2 then v = v - m end
    return v
  end

  local function promoted(size, signed)
    if size < 4 then return 4, true end
    return size, signed
  end

  -- C's usual arithmetic conversions of two promoted types.
  local function common(s1, g1, s2, g2)
    s1, g1 = promoted(s1, g1)
    s2, g2 = promoted(s2, g2)
    if s1 == s2 then return s1, g1 and g2 end
    if s1 > s2 then return s1, g1 end
    return s2, g2
  end

  -- The two 32-bit halves of an exact integer (two's complement for negative values).
  local function halves(v)
    return floor(v / P32) % P32, v % P32
  end

  local function join(hi, lo, signed)
    if signed and hi >= P31 then hi = hi - P32 end
    if hi >= 2097152 or hi < -2097152 then return nil end
    return hi * P32 + lo
  end

  -- (a * b) mod 2^32 for 0 <= a, b < 2^32, exact.
  local function mul32(a, b)
    local ah, al = floor(a / 65536), a % 65536
    return (al * b + ((ah * b) % 65536) * 65536) % P32
  end

  local function constval(x)
    local b = x.b
    local hi, lo = b:higher(), b:lower()
    if x.g and hi >= P31 then
      hi = hi - P32
      if hi < -2097152 then return nil end
    elseif hi >= 2097152 then
      return nil
    end
    return hi * P32 + lo
  end

  local BIT = { ["&"] = band, ["|"] = bor, ["^"] = bxor }
  local CMP = { ["=="] = true, ["!="] = true, ["<"] = true, ["<="] = true, [">"] = true, [">="] = true }

  local function field(ev, i)
    local f = ev.f[i]
    local kind, size, off, signed = f.kind, f.size, f.offset, f.signed
    if kind == "pointer" then signed = false
    elseif kind ~= "int" then return nil end
    if size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8 then return nil end
    local half = POW8[size] and POW8[size] / 2
    local fn
    if size == 8 then
      fn = function(ctx)
        if off + 8 > ctx.pl then return nil end
        local s, o = ctx.s, ctx.b + off
        local a, b, c, d, e, f2, g, h = byte(s, o + 1, o + 8)
        local hi, lo
        if ctx.le then
          lo = ((d * 256 + c) * 256 + b) * 256 + a
          hi = ((h * 256 + g) * 256 + f2) * 256 + e
        else
          hi = ((a * 256 + b) * 256 + c) * 256 + d
          lo = ((e * 256 + f2) * 256 + g) * 256 + h
        end
        return join(hi, lo, signed)
      end
    else
      fn = function(ctx)
        if off + size > ctx.pl then return nil end
        local s, o = ctx.s, ctx.b + off
        local u = 0
        if ctx.le then
          for k = o + size, o + 1, -1 do u = u * 256 + byte(s, k) end
        else
          for k = o + 1, o + size do u = u * 256 + byte(s, k) end
        end
        if signed and u >= half then u = u - 2 * half end
        return u
      end
    end
    return fn, "i", size, signed, kind == "pointer"
  end

  local function binary(op, fa, sa, ga, fb, sb, gb)
    if op == "&&" then
      return function(ctx)
        local a = fa(ctx)
        if a == nil then return nil end
        if a == 0 then return 0 end
        local b = fb(ctx)
        if b == nil then return nil end
        return b ~= 0 and 1 or 0
      end, "i", 4, true
    elseif op == "||" then
      return function(ctx)
        local a = fa(ctx)
        if a == nil then return nil end
        if a ~= 0 then return 1 end
        local b = fb(ctx)
        if b == nil then return nil end
        return b ~= 0 and 1 or 0
      end, "i", 4, true
    elseif op == "<<" or op == ">>" then
      local size, signed = promoted(sa, ga)
      local bits = size * 8
      local left = op == "<<"
      return function(ctx)
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        local c = b % bits
        if left then
          if size == 8 then
            local r = a * 2 ^ c
            if r > P53 or r < -P53 then return nil end
            return wrap(r, 8, signed)
          end
          return wrap((a % 2 ^ (32 - c)) * 2 ^ c, size, signed)
        end
        if not signed and a < 0 then return nil end
        return floor(a / 2 ^ c)
      end, "i", size, signed
    end
    local size, signed = common(sa, ga, sb, gb)
    if CMP[op] then
      return function(ctx)
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        a, b = wrap(a, size, signed), wrap(b, size, signed)
        if a == nil or b == nil then return nil end
        local r
        if op == "==" then r = a == b elseif op == "!=" then r = a ~= b elseif op == "<" then r = a < b
        elseif op == "<=" then r = a <= b elseif op == ">" then r = a > b else r = a >= b end
        return r and 1 or 0
      end, "i", 4, true
    end
    local bf = BIT[op]
    if bf then
      return function(ctx)
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        a, b = wrap(a, size, signed), wrap(b, size, signed)
        if a == nil or b == nil then return nil end
        if size < 8 or (a >= 0 and b >= 0 and a < P32 and b < P32) then
          return wrap(bf(a % P32, b % P32) % P32, size, signed)
        end
        local ah, al = halves(a)
        local bh, bl = halves(b)
        return join(bf(ah, bh) % P32, bf(al, bl) % P32, signed)
      end, "i", size, signed
    end
    if op == "+" or op == "-" or op == "*" then
      return function(ctx)
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        a, b = wrap(a, size, signed), wrap(b, size, signed)
        if a == nil or b == nil then return nil end
        local r
        if op == "+" then r = a + b elseif op == "-" then r = a - b
        else
          r = a * b
          if size < 8 and (r >= P53 or r <= -P53) then r = mul32(a % P32, b % P32) end
        end
        if size == 8 and (r >= P53 or r <= -P53) then return nil end
        return wrap(r, size, signed)
      end, "i", size, signed
    end
    if op == "/" or op == "%" then
      return function(ctx)
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        a, b = wrap(a, size, signed), wrap(b, size, signed)
        if a == nil or b == nil or b == 0 or a >= P31 or a < -P31 or b >= P31 or b < -P31 then return nil end
        local q = a / b
        if q >= 0 then q = floor(q) else q = -floor(-q) end
        if op == "/" then return wrap(q, size, signed) end
        return wrap(a - q * b, size, signed)
      end, "i", size, signed
    end
    return nil
  end

  -- The flags of __print_flags / __print_symbolic with constant entries, as the general
  -- evaluator's number loops do (values below 2^32 after the truncation to a long).
  local function flagcall(ev, n, name)
    local u64 = name == "__print_flags_u64" or name == "__print_symbolic_u64"
    local sym = name == "__print_symbolic" or name == "__print_symbolic_u64"
    local first = sym and 4 or 5
    if n[3] == nil then return nil end
    local fv, ty = fastc(ev, n[3])
    if not fv or ty ~= "i" then return nil end
    local nums = entrynums(n, first, u64)
    if not nums then return nil end
    local names = {}
    for i = first, #n do
      local e = n[i]
      if e[3][1] ~= N_STR then return nil end
      names[i] = e[3][2]
    end
    local function val(ctx)
      local v = fv(ctx)
      if v == nil then return nil end
      if v < 0 then
        if u64 or LONG ~= 4 then return nil end
        v = v % P32
      end
      if LONG == 4 and not u64 then v = v % P32 end
      if v >= P32 then return nil end
      return v
    end
    if sym then
      local map = {}
      for i = #n, first, -1 do map[nums[i]] = i end
      return function(ctx)
        local v = val(ctx)
        if v == nil then return nil end
        local i = map[v]
        if i and names[i] ~= "" then return names[i] end
        return "0x" .. string.format("%x", v)
      end, "t"
    end
    if n[4] == nil or n[4][1] ~= N_STR then return nil end
    local delim = n[4][2]
    local t = {}
    return function(ctx)
      local fl = val(ctx)
      if fl == nil then return nil end
      local k = 0
      local i = first
      while n[i] ~= nil and fl ~= 0 do
        local m = nums[i]
        if band(fl, m) % P32 == m then
          fl = fl - m
          if k > 0 then k = k + 1; t[k] = delim end
          k = k + 1; t[k] = names[i]
        end
        i = i + 1
      end
      if fl ~= 0 then
        if k > 0 then k = k + 1; t[k] = delim end
        k = k + 1; t[k] = "0x" .. string.format("%x", fl)
      end
      return table.concat(t, "", 1, k)
    end, "t"
  end

  local memo = setmetatable({}, { __mode = "k" })

  -- The closure of node n of event ev: fn, type ("i"/"t"), size, signed, pointer; nil when the
  -- node is not one the fast evaluator handles.
  local function compile(ev, n)
    local t = n[1]
    if t == N_LIT then
      local x = n[2]
      if x.k ~= "i" then return nil end
      local v = constval(x)
      if v == nil then return nil end
      return function() return v end, "i", x.s, x.g
    elseif t == N_STR then
      local s = n[2]
      return function() return s end, "t"
    elseif t == N_FLD then
      return field(ev, n[2])
    elseif t == N_UN then
      local op = n[2]
      local fa, ty, sa, ga = fastc(ev, n[3])
      if not fa or ty ~= "i" then return nil end
      if op == "!" then
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return a == 0 and 1 or 0 end, "i", 4, true
      end
      local size, signed = promoted(sa, ga)
      if op == "+" then return function(ctx) return fa(ctx) end, "i", size, signed end
      if op == "-" then
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return wrap(-a, size, signed) end,
          "i", size, signed
      end
      if op == "~" then
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return wrap(-a - 1, size, signed) end,
          "i", size, signed
      end
      return nil
    elseif t == N_BIN then
      local fa, ta, sa, ga = fastc(ev, n[3])
      local fb, tb, sb, gb = fastc(ev, n[4])
      if not fa or not fb or ta ~= "i" or tb ~= "i" then return nil end
      return binary(n[2], fa, sa, ga, fb, sb, gb)
    elseif t == N_TERN then
      local fc, tc = fastc(ev, n[2])
      local fa, ta, sa, ga, pa = fastc(ev, n[3])
      local fb, tb, sb, gb, pb = fastc(ev, n[4])
      if not fc or not fa or not fb or tc ~= "i" then return nil end
      if ta == "t" and tb == "t" then
        return function(ctx)
          local c = fc(ctx)
          if c == nil then return nil end
          if c ~= 0 then return fa(ctx) end
          return fb(ctx)
        end, "t"
      end
      if ta ~= "i" or tb ~= "i" or pa or pb then return nil end
      local size, signed = common(sa, ga, sb, gb)
      return function(ctx)
        local c = fc(ctx)
        if c == nil then return nil end
        local a, b = fa(ctx), fb(ctx)
        if a == nil or b == nil then return nil end
        return wrap(c ~= 0 and a or b, size, signed)
      end, "i", size, signed
    elseif t == N_CAST then
      if n[3] then return nil end
      local fa, ta, sa, ga = fastc(ev, n[2])
      if not fa or ta ~= "i" then return nil end
      local special, size, signed = n[8], n[4], n[5]
      if special == "void" then
        return function(ctx) if fa(ctx) == nil then return nil end; return 0 end, "i", 4, true
      end
      if special == "bool" then
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return a ~= 0 and 1 or 0 end, "i", 1, false
      end
      if size < 0 then return fa, "i", sa, ga end
      return function(ctx) return wrap(fa(ctx), size, signed) end, "i", size, signed
    elseif t == N_CALL then
      local name = n[2]
      if name == "__print_flags" or name == "__print_flags_u64" or name == "__print_symbolic"
          or name == "__print_symbolic_u64" then
        return flagcall(ev, n, name)
      end
      return nil
    end
    return nil
  end

  fastwrap = wrap

  fastc = function(ev, n)
    local m = memo[n]
    if m == nil then
      local fn, ty, size, signed, ptr = compile(ev, n)
      m = fn and { fn, ty, size, signed, ptr } or false
      memo[n] = m
    end
    if not m then return nil end
    return m[1], m[2], m[3], m[4], m[5]
  end
end)()

fastconv = function(ctx, c, conv, flags, width, precision)
  local v = c[9](ctx)
  if v == nil then return nil end
  if c[10] == "t" then
    if conv ~= "s" then return nil end
    return vstring(v, flags, width, precision)
  end
  if conv == "c" then return vstring(string.char(v % 256), flags, width, -1) end
  local base = FASTBASE[conv]
  if base == nil then return nil end
  local signed = base == 10 and conv ~= "u"
  v = fastwrap(v, c[4], signed)
  if v == nil or (v < 0 and not signed) then return nil end
  local plain = c[11]
  if plain then return string.format(plain, v) end
  if conv == "x" then flags = bit.bor(flags, SMALL) end
  if signed then flags = bit.bor(flags, SIGN) end
  return number(v, base, flags, width, precision)
end
---------------------------------------------------------------------------- print tables
-- A print table (named keys: docs/dissector.md, "Event description") becomes the evaluator's
-- internal form once per event, when its first frame is dissected: { segments, args } of
-- positional nodes, field names resolved to field indexes, constants to values, flag characters to
-- bits. Subtrees the generator shares (locals of the print function) are compiled once.
-- The table comes from the generated plugin or from a capture's FORMAT message (untrusted): every
-- shape is checked here (bad() raises), so the evaluator only ever sees well-formed nodes.
local FLAGBITS = { ["-"] = LEFT, ["+"] = PLUS, [" "] = SPACE, ["#"] = SPECIAL, ["0"] = ZEROPAD }
local INTTYPES = { s8 = { 1, true }, s16 = { 2, true }, s32 = { 4, true }, s64 = { 8, true },
  u8 = { 1, false }, u16 = { 2, false }, u32 = { 4, false }, u64 = { 8, false } }
local CONVS = { d = true, i = true, u = true, o = true, x = true, X = true, c = true, s = true, p = true }
local UNARY = { ["-"] = true, ["+"] = true, ["!"] = true, ["~"] = true, ["*"] = true, ["&"] = true }
local BINARY = { ["+"] = true, ["-"] = true, ["*"] = true, ["/"] = true, ["%"] = true, ["&"] = true, ["|"] = true,
  ["^"] = true, ["<<"] = true, [">>"] = true, ["=="] = true, ["!="] = true, ["<"] = true, ["<="] = true, [">"] = true,
  [">="] = true, ["&&"] = true, ["||"] = true, [","] = true }

local PLAINFMT = { d = "%d", i = "%d", u = "%d", o = "%o", x = "%x", X = "%X" }

local function bad(msg) error({ tw = "bad print table: " .. msg }, 0) end

-- "s32", "u64", ...: size in bytes and signedness.
local function inttype(t)
  local r = INTTYPES[t]
  if r == nil then bad("integer type " .. tostring(t)) end
  return r[1], r[2]
end

local function isint(v) return type(v) == "number" and v == math.floor(v) and v > -2 ^ 53 and v < 2 ^ 53 end

-- A constant: v is a number or a "0x" followed by 1 to 16 hex digits.
local function constant(v, t)
  local size, signed = inttype(t)
  local b
  if type(v) == "string" then
    if not v:match("^0x%x%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?$") then bad("constant " .. v) end
    b = U.fromhex(v:sub(3))
  elseif not isint(v) then bad("constant " .. tostring(v))
  elseif v >= 0 then b = U.new(v % 4294967296, math.floor(v / 4294967296))
  else
    local m = -v
    b = U0 - U.new(m % 4294967296, math.floor(m / 4294967296))
  end
  local x = int(b, size, signed)
  x.c = {}   -- a constant: its promoted and converted forms are kept here (see convert)
  return { N_LIT, x }
end

local compilenode

local function compilelist(ev, list, memo, into, depth)
  if type(list) ~= "table" then bad("list expected") end
  for i = 1, #list do into[#into + 1] = compilenode(ev, list[i], memo, depth) end
  return into
end

compilenode = function(ev, n, memo, depth)
  local t = type(n)
  if t == "number" then return constant(n, "s32") end
  if t == "string" then return { N_STR, n, text(n) } end
  if t ~= "table" then bad("node of type " .. t) end
  if depth > MAX_DEPTH then bad("nests deeper than " .. MAX_DEPTH) end
  local c = memo[n]
  if c then return c end
  local d = depth + 1
  if n.int ~= nil then
    c = constant(n.int, n.type)
  elseif n.field ~= nil then
    for i, f in ipairs(ev.f) do
      if f.name == n.field then c = { N_FLD, i }; break end
    end
    if not c then c = { N_ERR, "no field " .. tostring(n.field) } end
  elseif n.ident ~= nil then
    if type(n.ident) ~= "string" then bad("ident") end
    c = { N_IDENT, n.ident }
  elseif n.error ~= nil then
    c = { N_ERR, tostring(n.error) }
  elseif n.op ~= nil then
    local op = n.op
    local o = compilelist(ev, n, memo, {}, d)
    if op == "[]" and #o == 2 then c = { N_IDX, o[1], o[2] }
    elseif op == "?:" and #o == 3 then c = { N_TERN, o[1], o[2], o[3] }
    elseif op == "sizeof" and #o == 1 then c = { N_SIZEOF, o[1] }
    elseif #o == 1 and UNARY[op] then c = { N_UN, op, o[1] }
    elseif #o == 2 and BINARY[op] then c = { N_BIN, op, o[1], o[2] }
    else bad("operator " .. tostring(op) .. " with " .. #o .. " operands") end
  elseif n.cast ~= nil then
    if n[1] == nil or n[2] ~= nil then bad("cast needs one operand") end
    local a = compilenode(ev, n[1], memo, d)
    local ct = n.cast
    if ct == "pointer" then
      local es, eg = inttype(n.to)
      local pointee = n.pointee
      if pointee ~= nil and type(pointee) ~= "string" then bad("pointee") end
      c = { N_CAST, a, true, 8, false, es, eg, "", pointee }
    elseif ct == "void" or ct == "bool" then
      c = { N_CAST, a, false, 0, false, 0, false, ct }
    elseif ct == "unknown" then
      c = { N_CAST, a, false, -1, false, 0, false, "" }
    else
      local size, signed = inttype(ct)
      c = { N_CAST, a, false, size, signed, 0, false, "" }
    end
  elseif n.call ~= nil then
    if type(n.call) ~= "string" then bad("call name") end
    -- C's argument list: the arguments, then the { value, name } entries of a flag/symbol table
    c = compilelist(ev, n, memo, { N_CALL, n.call }, d)
    if n.entries ~= nil then compilelist(ev, n.entries, memo, c, d) end
  else
    c = compilelist(ev, n, memo, { N_BRACE }, d)
  end
  memo[n] = c
  return c
end

local function star(v, what)
  if v == "*" then return -2 end
  if v == nil then return -1 end
  if not isint(v) or v < 0 then bad(what .. " " .. tostring(v)) end
  return math.min(v, MAX_WIDTH)
end

-- Adds to acc the indexes of the fields compiled node n reads ({N_FLD, i} anywhere below it); seen
-- keeps shared subtrees from being walked twice.
local function fieldsof(n, acc, seen)
  if type(n) ~= "table" or seen[n] then return end
  seen[n] = true
  local tag = n[1]
  if tag == N_FLD then acc[n[2]] = true; return end
  if tag == N_LIT or tag == N_STR or tag == N_ERR or tag == N_IDENT then return end
  for k = 2, #n do
    if type(n[k]) == "table" then fieldsof(n[k], acc, seen) end
  end
end

-- Where the kernel's text shows each field: { [field index] = { first, last, plain, field, rank } },
-- a run of segments: conversions whose arguments read that field alone, adjacent or joined by
-- literal text without spaces or '=' ("%s%s" of sched_switch's prev_state prints "D" or "R+", the
-- "%d,%d" of a device number "8,0"); plain when the run is one %d/%i/%u/%s of the bare field (its
-- text is the value). A field printed in several runs takes the best: not plain and labelled with
-- its own name ("pfn=0x%lx" rather than "page=%p" of the same pfn), then not plain (softirq's
-- "vec=%u [action=%s]": the action), then labelled, then the first.
local STRKINDS = { char_array = true, dynamic_string = true }
local gsub, match = string.gsub, string.match
local function fieldruns(ev, segs)
  local runs = {}
  local cur, reach = nil, 0
  for si = 1, #segs do
    local c = segs[si]
    if type(c) == "string" then
      if cur and reach == si - 1 and not find(c, "[%s=]") then reach = si else cur = nil end
    elseif not c[12] then
      cur = nil
    elseif cur and cur[4] == c[12] and reach == si - 1 then
      cur[2] = si; reach = si
      if cur[3] then
        cur[3] = false; cur[5] = cur[5] + 2
        if runs[cur[4]][5] < cur[5] then runs[cur[4]] = cur end
      end
    else
      local fi = c[12]
      local f = ev.f[fi]
      local conv = c[5]
      local plain = c[8] == fi and f ~= nil and ((conv == "s" and STRKINDS[f.kind] == true)
        or (not STRKINDS[f.kind] and (conv == "d" or conv == "i" or conv == "u")))
      local rank = plain and 0 or 2
      local prev = segs[si - 1]
      local lead = ""
      if f and type(prev) == "string" then
        -- "name=" or "name: " right before, or with a prefix the text keeps ("pfn=0x%lx": "0x")
        local label = gsub(f.name, "%W", "%%%0")
        local m = match(prev, "%f[%w_]" .. label .. "=(%S*)$") or match(prev, "%f[%w_]" .. label .. ": (%S*)$")
        if m then rank = rank + 1; lead = m end
      end
      -- [6]: the labelled prefix; [7]: the raw value reads best in hex (%p, %x)
      cur = { si, si, plain, fi, rank, lead, conv == "p" or conv == "x" or conv == "X" }
      reach = si
      local had = runs[fi]
      if had == nil or had[5] < rank then runs[fi] = cur end
    end
  end
  return runs
end

-- src: { format = { text | conversion ... }, args = { node ... } }
local function compileprint(ev, src)
  if type(src) ~= "table" or type(src.format) ~= "table" then bad("no format list") end
  local memo = {}
  local segs = {}
  local nconv = 0
  for i = 1, #src.format do
    local s = src.format[i]
    if type(s) == "string" then
      segs[i] = s
    elseif type(s) == "table" then
      local conv, ext, fl = s.conv, s.ext or "", s.flags or ""
      if not CONVS[conv] then bad("conversion " .. tostring(conv)) end
      if type(ext) ~= "string" or type(fl) ~= "string" then bad("conversion flags") end
      local size = s.size or 4
      if size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8 then bad("conversion size " .. tostring(size)) end
      local flags = 0
      for ch in fl:gmatch(".") do flags = bit.bor(flags, FLAGBITS[ch] or 0) end
      local seg = { flags, star(s.width, "width"), star(s.precision, "precision"), size, conv, ext,
        tostring(s.text or "%" .. conv) }
      -- c[11]: for an integer conversion without width, precision and flags that show, the C
      -- format that prints its (converted) value the same way
      if seg[2] == -1 and seg[3] == -1 and bit.band(flags, PLUS + SPACE + SPECIAL) == 0 then
        seg[11] = PLAINFMT[conv]
      end
      segs[i] = seg
      nconv = nconv + 1
    else
      bad("format piece")
    end
  end
  local args = compilelist(ev, src.args or {}, memo, {}, 1)
  -- c[8]: the field index when a conversion's argument is a plain field (render's fast path)
  local ai = 1
  for i = 1, #segs do
    local c = segs[i]
    if type(c) ~= "string" then
      if c[2] == -2 then ai = ai + 1 end
      if c[3] == -2 then ai = ai + 1 end
      local a = args[ai]
      if a and a[1] == N_FLD then c[8] = a[2] end
      -- c[9], c[10]: the argument's closure on Lua numbers and its type (fastc), when it has one
      if a then c[9], c[10] = fastc(ev, a) end
      -- c[12]: the one field the conversion's arguments (with '*' ones) read, false for none or several
      local acc, seen = {}, {}
      for k = ai - (c[2] == -2 and 1 or 0) - (c[3] == -2 and 1 or 0), ai do fieldsof(args[k], acc, seen) end
      local one = false
      for fi, _ in pairs(acc) do
        if one then one = false; break end
        one = fi
      end
      c[12] = one
      ai = ai + 1
    end
  end
  return { segs, args, fieldruns(ev, segs) }
end
---------------------------------------------------------------------------- fallback text
local function bytestext(d, o, l)
  local t = {}
  if l - o > 65536 then l = o + 65536 end
  for i = o + 1, l do t[#t + 1] = hex2(byte(d, i)) end
  return "ARRAY[" .. table.concat(t, ", ") .. "]"
end

-- Field i of the frame in ctx as name=value pairs print it (EventPrinter.fallbackText), in the
-- field's fallback style: string, pointer (hex), hex (a C long), signed, unsigned or bytes.
-- Fails when the field lies outside the record.
local function fieldtext(ctx, i)
  local f = ctx.ev.f[i]
  local st = f.fallback
  if st == "string" then
    local off, len = span(ctx, f)
    return cstring({ d = ctx.s, o = ctx.b + off, l = ctx.b + off + len })
  elseif st == "pointer" or st == "hex" or st == "signed" or st == "unsigned" then
    local size = f.size
    if (size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8) or f.offset + size > ctx.pl then
      fail("field " .. f.name .. " outside the record")
    end
    local u = rdu(ctx.s, ctx.b + f.offset, size, ctx.le)
    if st == "signed" and f.signed then
      local v = ext(u, size, true)
      if isneg(v) then return "-" .. tostring(U0 - v) end
      return tostring(v)
    end
    if st == "signed" or st == "unsigned" then return tostring(u) end
    return "0x" .. digits(u, 16)
  end
  local off, len = span(ctx, f)
  return bytestext(ctx.s, ctx.b + off, ctx.b + off + len)
end

local function fallbacktext(ctx)
  local t = {}
  local fs = ctx.ev.f
  for i = 1, #fs do
    local ok, r = pcall(fieldtext, ctx, i)
    t[i] = fs[i].name .. "=" .. (ok and r or "?")
  end
  return table.concat(t, " ")
end

local function syscalltext(ctx)
  local ev = ctx.ev
  local name = ev.n
  local enter = name:sub(1, 10) == "sys_enter_"
  local call = "sys_" .. name:sub(enter and 11 or 10)
  local function ul(i)
    local f = ev.f[i]
    local size = f.size
    if (size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8) or f.offset + size > ctx.pl then fail("short") end
    local v = rdu(ctx.s, ctx.b + f.offset, size, ctx.le)
    if f.signed and size < 8 and not (size == 4 and LONG == 4) then v = ext(v, size, true) end
    return v
  end
  if enter then
    local t = {}
    for i, f in ipairs(ev.f) do
      if f.name ~= "__syscall_nr" then
        local v = ul(i)
        local s
        if v < U.new(10, 0) then s = tostring(v) else s = "0x" .. digits(v, 16) end
        t[#t + 1] = f.name .. ": " .. s
      end
    end
    return call .. "(" .. table.concat(t, ", ") .. ")"
  end
  for i, f in ipairs(ev.f) do
    if f.name == "ret" then return call .. " -> 0x" .. digits(ul(i), 16) end
  end
  return call .. " -> 0x0"
end

-- The event's compiled print table (compileprint, once per event), or false when it has none or
-- its table is unusable (then ev.pferr says why).
local function printof(ev)
  local pf = ev.cpf
  if pf == nil then
    pf = false
    local src = ev.pf
    if type(src) == "function" then
      local ok, r = pcall(src)
      if ok then src = r else src = nil; ev.pferr = tostring(type(r) == "table" and r.tw or r) end
    end
    if type(src) == "table" then
      local ok, r = pcall(compileprint, ev, src)
      if ok then pf = r else ev.pferr = tostring(type(r) == "table" and r.tw or r) end
    end
    ev.cpf = pf
  end
  return pf
end

---------------------------------------------------------------------------- stack traces
-- ftrace:kernel_stack and ftrace:user_stack records (capture --stack, docs/stacks.md). Their print
-- fmts ("\t=> %ps\n" x 8) are not what the kernel prints: trace_stack_print() and
-- trace_user_stack_print() (kernel/trace/trace_output.c) do, with the default trace options. A
-- kernel stack's caller array runs to the record's end (its size entries, not the format's 8) or
-- to ULONG_MAX, each frame its symbol's name (the capture's SYMBOLS context, else the kallsyms
-- preference), 0x%08lx when unknown, 0 for 0; a user stack's 8 entries to the first 0, " <%016lx>",
-- then " NAME+0xOFF [FILE]" where the capture resolved it in the process (SYMBOLS items 4, kept in
-- the scope's syms under "u<tgid>:<hex16>" by applymsg).
local SF = {
  stack = ProtoField.none("tracewire.stack", "Stack trace"),
  func = ProtoField.string("tracewire.stack.func", "Function"),
  address = ProtoField.uint64("tracewire.stack.address", "Address", base.HEX),
}
local SF_LIST = { SF.stack, SF.func, SF.address }
for k = 1, #SF_LIST do ALL_FIELDS[#ALL_FIELDS + 1] = SF_LIST[k] end

-- The stack record in ctx: nil for any other event; else the kernel's text with its lines joined
-- ("<stack trace> => f1 => f2", the Info column), and given a tree (modes 1 and 2: when one of
-- SF_LIST is referenced in mode 1; anyref is defined further down) a "Stack trace" subtree with
-- each frame's function and address.
local function stacktrace(ctx, tree, mode, tvb)
  local ev = ctx.ev
  if not ev or ev.s ~= "ftrace" or (ev.n ~= "kernel_stack" and ev.n ~= "user_stack") then return nil end
  local c = nil
  for i = 1, #ev.f do if ev.f[i].name == "caller" then c = ev.f[i] end end
  local es = c and c.elem_size or 0
  if es ~= 8 and es ~= 4 then return nil end
  local kernel = ev.n == "kernel_stack"
  local stop = ctx.pl
  if not kernel and c.offset + c.size < stop then stop = c.offset + c.size end
  local last = es == 8 and U.new(0xffffffff, 0xffffffff) or U.new(0xffffffff, 0)
  local tgid = nil -- a user stack's process: the key of the symbols the capture resolved in it
  for i = 1, #ev.f do
    local f = ev.f[i]
    if not kernel and f.name == "tgid" and f.size == 4 and f.offset + 4 <= ctx.pl then
      tgid = rdu(ctx.s, ctx.b + f.offset, 4, ctx.le):lower()
    end
  end
  local t = { kernel and "<stack trace>" or "<user stack trace>" }
  local sub = nil
  if tree and stop > c.offset and (mode == 2 or tree:referenced(SF.stack) or tree:referenced(SF.func)
      or tree:referenced(SF.address)) then
    sub = tree:add(SF.stack, tvb(ctx.b + c.offset, stop - c.offset))
  end
  local off = c.offset
  while off + es <= stop do
    local a = rdu(ctx.s, ctx.b + off, es, ctx.le)
    if (kernel and a == last) or (not kernel and a == U0) then break end
    local name, func = nil, nil
    if not kernel then
      local h = digits(a, 16)
      name = " <" .. string.rep("0", 16 - #h) .. h .. ">"
      local e = tgid and ctx.cx and ctx.cx.syms["u" .. tgid .. ":" .. hex16(a)]
      if e and not (a < e[2]) and a - e[2] < e[3] then
        -- resolved by the capture in its process: report's " NAME+0xOFF [FILE]" after the address
        func = e[1]
        name = name .. " " .. func .. "+0x" .. digits(a - e[2], 16) .. (e[4] and (" [" .. e[4] .. "]") or "")
      end
    elseif a == U0 then name = "0"
    else
      if ctx.cx then name = ctxsym(ctx.cx, a, false) end
      if not name then
        local syms = symbols()
        if syms then name = lookupsym(syms, a) end
      end
      if not name or name == "" then
        local h = digits(a, 16)
        name = "0x" .. string.rep("0", 8 - #h) .. h
      end
    end
    t[#t + 1] = name
    if kernel then func = name end
    if sub then
      local r = tvb(ctx.b + off, es)
      if func then sub:add(SF.func, r, func) end
      sub:add(SF.address, r, a)
    end
    off = off + es
  end
  if sub then sub:append_text(" (" .. (#t - 1) .. (kernel and " kernel" or " user") .. " frames)") end
  return table.concat(t, " => ")
end

-- The kernel's text after the time column: "name: <print fmt text>" (or the syscall text) of the
-- frame in ctx (EventPrinter's rules: an evaluation failure gives name=value pairs).
local function eventtext(ctx)
  local ev = ctx.ev
  local stack = stacktrace(ctx)
  if stack then return stack end
  if ev.sc then
    local ok, r = pcall(syscalltext, ctx)
    if ok then return r end
  end
  local head = ev.head
  if head == nil then head = ev.n .. ": "; ev.head = head end
  local pf = printof(ev)
  if pf then
    local ok, r = pcall(render, ctx, pf, head)
    if ok then ctx.rendered = pf; return r end
    if type(r) ~= "table" then error(r, 0) end
  end
  return head .. fallbacktext(ctx)
end
---------------------------------------------------------------------------- event tables
-- The generator writes one EV { ... } per event (docs/dissector.md, "Event description"):
--   EV {
--     id = 372, system = "sched", name = "sched_switch",
--     syscall = true,                 -- optional: Info is the kernel's syscall text
--     fields = {                      -- the event's own fields, in format order
--       {name = "prev_pid", kind = "int", offset = 24, size = 4, signed = true, rel = true, elem_size = 4,
--        abbrev = "tracewire.sched.sched_switch.prev_pid", ftype = "i32", base = "hex",
--        fallback = "signed", values = {[0] = "..."}, bits = {{abbrev = "...", name = "S", mask = 0x1}},
--        text = "tracewire.sched.sched_switch.prev_state.text"},   -- optional: the kernel's text of it
--     },
--     print = function() return {format = {...}, args = {...}} end,   -- absent: name=value pairs
--   }
-- A capture's FORMAT message carries the same table as a description tree (without abbrev, values
-- and bits, with print as the table itself, or print_fallback = "why"): descev below.
-- kind: one of KINDS below; ftype: a key of FT, "str" or "bytes"; fallback: see fieldtext.
-- An event: { id, s = system, n = name, full = "system:name", f = fields, pf = print function or
-- table, cpf = its compiled form (printof), sc = syscall text, pfs = { [i] = ProtoField } and
-- bits = { [i] = { ProtoField, ... } }, tpfs = { [i] = ProtoField } (the kernel's text of field i) (typed
-- items: the generated tables), enums = { NAME = UInt64 }
-- (the FORMAT's BTF enum constants) }
local EVENTS = {}
local FIELD_COUNT = 0

local KINDS = { int = true, pointer = true, char_array = true, array = true, dynamic_string = true,
  dynamic_array = true, dynamic_cpumask = true, opaque = true }
local FALLBACKS = { string = true, pointer = true, hex = true, signed = true, unsigned = true, bytes = true }
local FT = {
  u8 = ProtoField.uint8, u16 = ProtoField.uint16, u32 = ProtoField.uint32, u64 = ProtoField.uint64,
  i8 = ProtoField.int8, i16 = ProtoField.int16, i32 = ProtoField.int32, i64 = ProtoField.int64,
}

local function newfield(f)
  local ft, abbr, label = f.ftype, f.abbrev, f.name
  if ft == "str" then return ProtoField.string(abbr, label) end
  if ft == "bytes" then return ProtoField.bytes(abbr, label) end
  local ctor = FT[ft]
  if not ctor then error("tracewire: field " .. abbr .. " has unknown ftype " .. tostring(ft)) end
  local b = (f.base == "hex") and base.HEX or base.DEC
  return ctor(abbr, label, b, f.values)
end

local function EV(spec)
  local fields = spec.fields
  local ev = { id = spec.id, s = spec.system, n = spec.name, full = spec.system .. ":" .. spec.name, f = fields,
    pf = spec.print, sc = spec.syscall == true, pfs = {}, bits = {}, tpfs = {}, gen = true }
  for i, f in ipairs(fields) do
    if not KINDS[f.kind] then error("tracewire: field " .. f.abbrev .. " has unknown kind " .. tostring(f.kind)) end
    f.signed = f.signed == true
    f.rel = f.rel == true
    local pfield = newfield(f)
    ev.pfs[i] = pfield
    ALL_FIELDS[#ALL_FIELDS + 1] = pfield
    FIELD_COUNT = FIELD_COUNT + 1
    if f.text then
      -- the field as the kernel's text prints it ("D" for sched_switch's prev_state 2)
      local tf = ProtoField.string(f.text, f.name .. " (text)")
      ev.tpfs[i] = tf
      ALL_FIELDS[#ALL_FIELDS + 1] = tf
      FIELD_COUNT = FIELD_COUNT + 1
    end
    if f.bits then
      local list = {}
      local width = f.size * 8
      for _, b in ipairs(f.bits) do
        local bf
        if bit.band(b.mask, b.mask - 1) == 0 then bf = ProtoField.bool(b.abbrev, b.name, width, nil, b.mask)
        else bf = FT["u" .. width](b.abbrev, b.name, base.HEX, nil, b.mask) end
        list[#list + 1] = bf
        ALL_FIELDS[#ALL_FIELDS + 1] = bf
        FIELD_COUNT = FIELD_COUNT + 1
      end
      ev.bits[i] = list
    end
  end
  EVENTS[spec.id] = ev
end

-- An event from a FORMAT message's description tree (checked: it comes from the capture) and its
-- enum constants; nil and why when the tree does not describe an event.
local function descev(t, id, enums)
  if type(t) ~= "table" then return nil, "not a table" end
  if t.id ~= id then return nil, "id " .. tostring(t.id) .. " is not the FORMAT's " .. id end
  if type(t.system) ~= "string" or type(t.name) ~= "string" then return nil, "no system or name" end
  if type(t.fields) ~= "table" then return nil, "no fields" end
  local fields = {}
  for i = 1, #t.fields do
    local f = t.fields[i]
    if type(f) ~= "table" or type(f.name) ~= "string" or not KINDS[f.kind] then
      return nil, "field " .. i .. ": no name or kind"
    end
    local off, size, es = f.offset, f.size, f.elem_size or 1
    if not (isint(off) and off >= 0 and off <= 65535 and isint(size) and size >= 0 and size <= 65535
        and isint(es) and es >= 1 and es <= 65535) then
      return nil, "field " .. f.name .. ": offset, size or element size"
    end
    local ftype = f.ftype
    if ftype ~= "str" and ftype ~= "bytes" and FT[ftype] == nil then ftype = "bytes" end
    fields[i] = { name = f.name, kind = f.kind, offset = off, size = size, signed = f.signed == true,
      rel = f.rel == true, elem_size = es, ftype = ftype, base = f.base == "hex" and "hex" or nil,
      fallback = FALLBACKS[f.fallback] and f.fallback or "bytes" }
  end
  local pf = nil
  if t.print ~= nil then
    if type(t.print) ~= "table" then return nil, "print is not a table" end
    pf = t.print
  end
  return { id = id, s = t.system, n = t.name, full = t.system .. ":" .. t.name, f = fields, pf = pf,
    sc = t.syscall == true, enums = enums, desc = true }
end

-- Whether generated event g has the same fields at the same places as description event d: then
-- d's frames get g's typed ProtoFields.
local function samelayout(g, d)
  if g.full ~= d.full or #g.f ~= #d.f then return false end
  for i = 1, #g.f do
    local a, b = g.f[i], d.f[i]
    if a.name ~= b.name or a.kind ~= b.kind or a.offset ~= b.offset or a.size ~= b.size or a.signed ~= b.signed
        or a.rel ~= b.rel then
      return false
    end
  end
  return true
end

-- ======================== EVENT TABLES BEGIN ========================
-- ======================== EVENT TABLES END ==========================

tw.fields = ALL_FIELDS
tw.experts = { EF.lost, EF.truncated, EF.unknown, EF.no_context, EF.malformed, EF.version, EF.reserved, EF.cap,
  EF.changed, EF.fragment, EF.internal }

---------------------------------------------------------------------------- dissection helpers
-- Per-frame cost matters (a busy second of tracing is a million frames), so the frame is read
-- once as a Lua string and parsed with string.byte (no TvbRange per header field), fields are
-- read in place at their format offsets, and tree items are added only where someone can see them:
--   mode 2: the tree is visible (packet details, tshark -V / -T fields / -T json): every item;
--   mode 1: a tree without visible items (display filters, colouring rules, and every frame while
--           a field extractor is registered, as this file's frame.interface_id is): only the
--           fields that are referenced (TreeItem:referenced), and the items that carry them;
--   mode 0: no tree at all: no items, only the columns and the expert infos.
-- The Info column and the expert infos are the same in every mode.

-- Big-endian reads at 0-based offset o of the Lua string s (the caller checked the length).
local function be16(s, o) local a, b = byte(s, o + 1, o + 2); return a * 256 + b end
local function be32(s, o)
  local a, b, c, d = byte(s, o + 1, o + 4)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

local HDR_FLAG_BITS = { HF.flags_le, HF.flags_trunc, HF.flags_raw, HF.flags_res }
local CF_BITS = { HF.cf_irqs_off, HF.cf_resched_lazy, HF.cf_resched, HF.cf_hardirq, HF.cf_softirq,
  HF.cf_preempt_resched, HF.cf_nmi, HF.cf_bh_off }
local PC_BITS = { HF.preempt_depth, HF.migrate_disable }
local HDR_FIELDS = { HF.version, HF.kind, HF.flags, HF.flags_le, HF.flags_trunc, HF.flags_raw, HF.flags_res, HF.cpu,
  HF.seq, HF.time, HF.time_ns }
local GENERIC_GROUP = { HF.field, HF.field_name, HF.field_value, HF.field_text }
-- Every item eventtree may add besides an event's typed fields (allfields): in mode 1, a frame
-- for which none of these nor of its event's typed fields is referenced needs no items at all.
local EVENT_ITEMS = { HF.event_id, HF.common_flags, HF.preempt_count, HF.pid, HF.comm, HF.tgid, HF.event,
  HF.payload, HF.text, HF.header }
for _, l in ipairs({ CF_BITS, PC_BITS, GENERIC_GROUP, AF_LIST, SF_LIST }) do
  for k = 1, #l do EVENT_ITEMS[#EVENT_ITEMS + 1] = l[k] end
end

-- Whether a ProtoField is referenced (mode 1: TreeItem:referenced, 0.2 us a call). The answers
-- are kept for one pass over the frames: the fields a filter references change only between
-- passes (a new display filter makes Wireshark dissect every frame again from the first), and a
-- pass is seen to begin when a frame number is not above the previous one (newpass).
local REF, REF_LAST = {}, 0
local function newpass(number)
  if number <= REF_LAST then REF = {} end
  REF_LAST = number
end
local function ref(tree, pf)
  local r = REF[pf]
  if r == nil then r = tree:referenced(pf); REF[pf] = r end
  return r
end

-- Is any of the ProtoFields in list referenced by tree (mode 1)? Kept per list for the pass.
local function anyref(tree, list)
  local r = REF[list]
  if r == nil then
    r = false
    for k = 1, #list do if ref(tree, list[k]) then r = true; break end end
    REF[list] = r
  end
  return r
end

-- Adds the 16-byte header's items (mode 2, or mode 1 when one of them is referenced).
-- Flag bits, all on their byte's one range: every bit in a visible tree (mode 2: a filter of
-- tshark -Y with -V or -T fields tests unset bits too, and a visible tree cannot tell which fields a
-- filter references), the referenced ones otherwise.
local function bitlist(tree, mode, item, r, bits)
  for k = 1, #bits do
    local b = bits[k]
    if mode == 2 or ref(tree, b) then item:add(b, r) end
  end
end

-- Adds the 16-byte header's items (mode 2, or mode 1 when one of them is referenced): the time as
-- an absolute time (tracewire.time) and as its integer (tracewire.time_ns).
local BILLION = UInt64.new(1000000000, 0)
local function hdrtree(tree, mode, tvb)
  if mode == 1 and not anyref(tree, HDR_FIELDS) then return end
  tree:add(HF.version, tvb(0, 1))
  local r = tvb(1, 1)
  tree:add(HF.kind, r)
  local fl = tree:add(HF.flags, r)
  bitlist(tree, mode, fl, r, HDR_FLAG_BITS)
  tree:add(HF.cpu, tvb(2, 2))
  tree:add(HF.seq, tvb(4, 4))
  local tr = tvb(8, 8)
  local ns = tr:uint64()
  tree:add(HF.time, tr, NSTime.new((ns / BILLION):tonumber(), (ns % BILLION):tonumber()))
  tree:add(HF.time_ns, tr)
end

-- A byte with bit items (common_flags, preempt_count): all bits share the byte's one range.
local function bitsitem(tree, mode, tvb, o, pf, bits)
  if mode == 1 and not ref(tree, pf) and not anyref(tree, bits) then return end
  local r = tvb(o, 1)
  local item = tree:add(pf, r)
  bitlist(tree, mode, item, r, bits)
end

-- Field i of the frame in ctx as the kernel's text printed it (its run of conversions: fieldruns),
-- or nil (no such run, the text was not rendered from the print fmt, or the field is outside);
-- nil too when plainok and the run is the plain value (a %d of the field: nothing to add). Second
-- result: whether the raw value reads best in hex.
local function kernelof(ctx, i, plainok)
  local pf = ctx.rendered
  local run = pf and pf[3][i]
  if not run or (plainok and run[3]) then return nil end
  return run[6] .. segtext(run[1], run[2]), run[7]
end

-- The raw value of integer field i as the item shows it: decimal, or hex for a pointer (base hex)
-- and when hex is true (the kernel prints the field with %p or %x).
local function rawtext(ctx, i, hex)
  local f = ctx.ev.f[i]
  local u = rdu(ctx.s, ctx.b + f.offset, f.size, ctx.le)
  if hex or f.base == "hex" then return "0x" .. digits(u, 16) end
  if f.signed then
    local v = ext(u, f.size, true)
    if isneg(v) then return "-" .. tostring(U0 - v) end
    return tostring(v)
  end
  return tostring(u)
end

-- Item of field i as the kernel prints it: "prev_state: D (2)" (mode 2, when the text is not the
-- value itself) and the field's text ProtoField tpf below it (mode 2, or mode 1 when referenced).
-- value: the string of a string field, nil for bytes, false for an integer (read here).
local function kerneltext(tree, mode, item, range, ctx, i, tpf, value)
  if not (mode == 2 or (tpf and ref(tree, tpf))) then return end
  local t, hex = kernelof(ctx, i, tpf == nil)
  if t == nil then return end
  if tpf then item:add(tpf, range, t) end
  if mode ~= 2 then return end
  if value == false then
    -- the value as Wireshark shows it; in hex beside a text printed from it with %p or %x, unless
    -- that is the text itself ("pfn: 0x116914 (1141012)")
    value = rawtext(ctx, i, false)
    if hex and t ~= value then
      local h = rawtext(ctx, i, true)
      if h ~= t then value = h end
    end
  end
  if t ~= value then
    local shown = t == "" and '""' or t
    if value == nil then item:set_text(ctx.ev.f[i].name .. ": " .. shown)
    else item:set_text(ctx.ev.f[i].name .. ": " .. shown .. " (" .. value .. ")") end
  end
end

-- The typed item of field i (generated ProtoField) of the frame in ctx, when its bytes are in the
-- frame; false when not (the caller then shows the field generically).
local function typeditem(tree, mode, tvb, ctx, i)
  local ev = ctx.ev
  local f = ev.f[i]
  local pfield = ev.pfs[i]
  local ft = f.ftype
  local ok, off, len = pcall(span, ctx, f)
  if not ok then return false end
  local bits = ev.bits[i]
  local tpf = ev.tpfs and ev.tpfs[i]
  if mode == 1 and not ref(tree, pfield) and not (bits and anyref(tree, bits)) and not (tpf and ref(tree, tpf)) then
    return true
  end
  local range = tvb(ctx.b + off, len)
  if ft == "str" then
    local s = ctx.s
    local a = ctx.b + off + 1
    local z = find(s, "\0", a, true)
    local e = ctx.b + off + len
    if z and z <= e then e = z - 1 end
    local v = sub(s, a, e)
    kerneltext(tree, mode, tree:add(pfield, range, v), range, ctx, i, tpf, v)
    return true
  elseif ft == "bytes" then
    kerneltext(tree, mode, tree:add(pfield, range), range, ctx, i, tpf, nil)
    return true
  end
  if len ~= f.size then return false end
  local item
  if ctx.le then item = tree:add_le(pfield, range) else item = tree:add(pfield, range) end
  if tpf or mode == 2 then kerneltext(tree, mode, item, range, ctx, i, tpf, false) end
  if bits then
    for k = 1, #bits do
      local bf = bits[k]
      if mode == 2 or ref(tree, bf) then
        if ctx.le then item:add_le(bf, range) else item:add(bf, range) end
      end
    end
  end
  return true
end

-- A field shown generically: tracewire.field ("name: value") with tracewire.field.name and
-- tracewire.field.value (the value as name=value pairs print it).
local function genericitem(tree, tvb, ctx, i)
  local f = ctx.ev.f[i]
  local ok, off, len = pcall(span, ctx, f)
  local range
  if ok then range = tvb(ctx.b + off, len) else range = tvb(0, 0) end
  local okv, v = pcall(fieldtext, ctx, i)
  if not okv then v = "?" end
  local item = tree:add(HF.field, range)
  local t = kernelof(ctx, i, true)
  if t and t ~= v then item:set_text(f.name .. ": " .. (t == "" and '""' or t) .. " (" .. v .. ")")
  else item:set_text(f.name .. ": " .. v) end
  item:add(HF.field_name, range, f.name)
  item:add(HF.field_value, range, v)
  if t then item:add(HF.field_text, range, t) end
end
---------------------------------------------------------------------------- latency analysis
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
;(function()
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
end)()
---------------------------------------------------------------------------- context
-- The in-band context (docs/wire-format.md 4) is kept per scope: the source MAC in the Ethernet
-- encapsulation, the pcapng interface id for USER15 records. SCOPES[key] is the scope's newest
-- state; a CAPTURE message with another capture id starts a new one (prev = the older one). A state:
--   { from = its first frame, prev, capid, info = { [item] = value }, long = 4 or 8, consts = { NAME =
--     UInt64 }, typesizes = { ["page"] = 64 }, hz, formats = { [id] = fmt }, nformats, syms = { [hex16] =
--     { name, start, size, module } or false }, printk = { [hex16] = string }, nsyms, procs = { [pid] =
--     proc }, nprocs }
--   fmt = { from, prev, id, full, tree (item 4 bytes), enums (item 5 text), ev (made on first use) or
--           false, why }
--   proc = { from, prev, comm, tgid }
-- Context is applied on the first pass, in frame order; a revisit (the GUI, tshark -2) walks back to
-- what applied at its frame (the chains above), so every frame shows the context it was sent with.
local resetcontext, scopeat, fmtev, dissectcontext
;(function()
local SCOPES, NSCOPES = {}, 0
local PENDING, NPENDING, PENDING_BYTES, PENDING_ORDER = {}, 0, 0, 0
-- Forgets the messages of scope key still being reassembled (its capture restarted: the new capture
-- numbers its messages afresh, and its fragments would meet the old ones).
local function droppending(key)
  local prefix = tostring(key) .. "/"
  for pk, p in pairs(PENDING) do
    if sub(pk, 1, #prefix) == prefix then
      PENDING[pk] = nil; NPENDING = NPENDING - 1; PENDING_BYTES = PENDING_BYTES - p.bytes
    end
  end
end
local REVISIT, REVISIT_BYTES = {}, 0      -- frame number -> reassembled message (several fragments)
local REASSEMBLED_IN = {}                 -- frame number of a fragment -> frame that completed it
local NREASSEMBLED_IN = 0

local TOTAL_BYTES = 0

local function newstate(key, number, prev)
  return { key = key, from = number, prev = prev, info = {}, consts = {}, typesizes = {}, hz = 0,
    formats = {}, nformats = 0, syms = {}, printk = {}, nsyms = 0, procs = {}, nprocs = 0, bytes = 0 }
end

-- Accounts n more bytes of context to state st; false when that passes a cap.
local function charge(st, n)
  if st.bytes + n > CAP.SCOPE_BYTES or TOTAL_BYTES + n > CAP.TOTAL_BYTES then return false end
  st.bytes = st.bytes + n
  TOTAL_BYTES = TOTAL_BYTES + n
  return true
end
local BYTES_CAPPED = "the context's memory cap (" .. CAP.SCOPE_BYTES .. " bytes per scope, " .. CAP.TOTAL_BYTES
  .. " in all) is reached: "

function resetcontext()
  SCOPES, NSCOPES, TOTAL_BYTES = {}, 0, 0
  PENDING, NPENDING, PENDING_BYTES, PENDING_ORDER = {}, 0, 0, 0
  REVISIT, REVISIT_BYTES = {}, 0
  REASSEMBLED_IN, NREASSEMBLED_IN = {}, 0
end

-- The state of scope key that applies at frame number (nil when the scope has no context yet).
function scopeat(key, number)
  local st = SCOPES[key]
  while st and st.from > number do st = st.prev end
  return st
end

-- The scope's current state for applying a message of frame number (created on first use); nil
-- and a reason when the scope cap is reached.
local function curstate(key, number)
  local st = SCOPES[key]
  if st then return st end
  if NSCOPES >= CAP.SCOPES then return nil, "more than " .. CAP.SCOPES .. " scopes: context ignored" end
  NSCOPES = NSCOPES + 1
  st = newstate(key, number, nil)
  SCOPES[key] = st
  return st
end

local function u64at(s, o) return U.new(be32(s, o + 4), be32(s, o)) end

-- CTypes.normalize: "struct page" -> "page".
local function normtype(t)
  t = (" " .. t .. " "):gsub("[%s]+", " ")
  for _, w in ipairs({ "const", "volatile", "struct", "enum", "union" }) do
    t = t:gsub(" " .. w .. " ", " ")
  end
  return (t:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- A constant's value: decimal (optionally negative) or 0x hex, up to 64 bits; nil when not one.
local TEN = U.new(10, 0)
local function parseu64(v)
  local neg = false
  if v:sub(1, 1) == "-" then neg = true; v = v:sub(2) end
  local r
  if v:match("^0[xX]%x+$") and #v <= 18 then
    r = U.fromhex(v:sub(3))
  elseif v:match("^%d+$") and #v <= 20 then
    r = U0
    for k = 1, #v do r = r * TEN + U.new(byte(v, k) - 48, 0) end
  else
    return nil
  end
  if neg then r = U0 - r end
  return r
end

-- "NAME=value" lines into map (at most CAP.CONSTANTS); sizes of sizeof(TYPE) lines into types.
local function parseconsts(text, map, types)
  local n = 0
  for line in text:gmatch("[^\n]+") do
    local name, v = line:match("^%s*(.-)%s*=%s*(%S+)%s*$")
    local u = name and parseu64(v)
    if u and name ~= "" then
      n = n + 1
      if n > CAP.CONSTANTS then return false end
      local ty = types and name:match("^sizeof%s*%((.+)%)$")
      if ty then
        if u:higher() == 0 and u:lower() < 2147483648 then types[normtype(ty)] = u:lower() end
      else
        map[name] = u
      end
    end
  end
  return true
end

-- The items of a context message: calls fn(type, value offset, length) for each; returns nil, or
-- the message offset of an item running past the message end (the items before it stand).
local function eachitem(msg, fn)
  local off, n = 0, #msg
  while off < n do
    if off + 6 > n then return off end
    local ty = be16(msg, off)
    local l = be32(msg, off + 2)
    if off + 6 + l > n then return off end
    fn(ty, off + 6, l)
    off = off + 6 + l
  end
  return nil
end

-- Description tree (docs/wire-format.md 4.6) decoding: tag byte, then the value. Bounded: depth
-- <= MAX_DEPTH, every count and length checked against the bytes left, never load().
local TREE_ERR = {}
local function treeerr(msg) TREE_ERR.tw = msg; error(TREE_ERR, 0) end
local function s64at(s, o)
  local hi, lo = be32(s, o), be32(s, o + 4)
  if hi >= 2147483648 then return (hi - 4294967296) * 4294967296 + lo end
  return hi * 4294967296 + lo
end
local treevalue
treevalue = function(s, o, lim, depth)
  if o >= lim then treeerr("value runs past the item at tree offset " .. o) end
  local tag = byte(s, o + 1)
  if tag == 1 then
    if o + 5 > lim then treeerr("string length runs past the item at tree offset " .. o) end
    local l = be32(s, o + 1)
    if o + 5 + l > lim then treeerr("string runs past the item at tree offset " .. o) end
    return sub(s, o + 6, o + 5 + l), o + 5 + l
  elseif tag == 2 then
    if o + 9 > lim then treeerr("integer runs past the item at tree offset " .. o) end
    return s64at(s, o + 1), o + 9
  elseif tag == 3 then return true, o + 1
  elseif tag == 4 then return false, o + 1
  elseif tag == 5 then
    if depth > MAX_DEPTH then treeerr("tree deeper than " .. MAX_DEPTH .. " at tree offset " .. o) end
    if o + 5 > lim then treeerr("table runs past the item at tree offset " .. o) end
    local n = be32(s, o + 1)
    o = o + 5
    if n > lim - o then treeerr("table of " .. n .. " values runs past the item at tree offset " .. o) end
    local t = {}
    for i = 1, n do t[i], o = treevalue(s, o, lim, depth + 1) end
    if o + 4 > lim then treeerr("table key count runs past the item at tree offset " .. o) end
    local m = be32(s, o)
    o = o + 4
    if m > lim - o then treeerr("table of " .. m .. " keys runs past the item at tree offset " .. o) end
    for _ = 1, m do
      if o + 4 > lim then treeerr("key runs past the item at tree offset " .. o) end
      local kl = be32(s, o)
      if o + 4 + kl > lim then treeerr("key runs past the item at tree offset " .. o) end
      local k = sub(s, o + 5, o + 4 + kl)
      local v
      v, o = treevalue(s, o + 4 + kl, lim, depth + 1)
      t[k] = v
    end
    return t, o
  end
  treeerr("unknown tag " .. tag .. " at tree offset " .. o)
end

-- The event of a FORMAT (made on its first EVENT frame): from its description tree, with the
-- generated tables' typed fields when their layout is the same; else the generated event of that
-- name; else false (fmt.why says why).
function fmtev(fmt)
  local ev = fmt.ev
  if ev ~= nil then return ev end
  ev = false
  local gen = EVENTS[fmt.id]
  if gen and gen.full ~= fmt.full then gen = nil end
  if fmt.tree then
    local enums = nil
    if fmt.enums then
      enums = {}
      if not parseconsts(fmt.enums, enums, nil) then
        fmt.why = "more than " .. CAP.CONSTANTS .. " enum constants"
      end
    end
    local ok, t, e = pcall(treevalue, fmt.tree, 0, #fmt.tree, 1)
    if ok and e ~= #fmt.tree then ok, t = false, { tw = (#fmt.tree - e) .. " bytes after the tree" } end
    if ok then
      local d, why = descev(t, fmt.id, enums)
      if d then
        ev = d
        if gen and samelayout(gen, d) then ev.pfs, ev.bits, ev.tpfs = gen.pfs, gen.bits, gen.tpfs end
      else
        fmt.why = "description tree: " .. why
      end
    else
      fmt.why = "description tree: " .. tostring(type(t) == "table" and t.tw or t)
    end
  else
    fmt.nodesc = true
  end
  if not ev and gen then ev = gen end
  fmt.ev = ev
  return ev
end

-- Applies context message msg (kind k) of frame number to scope key (first pass). Returns the
-- Info text and an expert note (or nil).
local function applymsg(key, k, msg, number)
  local st, why = curstate(key, number)
  if not st then return nil, why end
  local note = nil
  if k == 1 then
    local info = {}
    eachitem(msg, function(ty, o, l)
      if ty == 8 or ty == 9 then info[ty] = l >= 1 and byte(msg, o + 1) or nil
      elseif ty >= 1 and ty <= 14 and info[ty] == nil then info[ty] = sub(msg, o + 1, o + l) end
    end)
    local capid = info[1]
    if capid and st.capid and st.capid ~= capid then
      st = newstate(key, number, st)
      SCOPES[key] = st
      droppending(key)
    end
    if capid then st.capid = capid end
    for ty, v in pairs(info) do st.info[ty] = v end
    if info[8] == 4 or info[8] == 8 then st.long = info[8] end
    if info[12] then
      local consts, types = {}, {}
      if not parseconsts(info[12], consts, types) then note = "more than " .. CAP.CONSTANTS .. " constants: the rest ignored" end
      for n, v in pairs(consts) do st.consts[n] = v end
      for n, v in pairs(types) do st.typesizes[n] = v end
      local hz = consts.HZ
      if hz and hz:higher() == 0 then st.hz = hz:lower() end
    end
    return "CAPTURE host " .. tostring(st.info[4] or "?") .. ", kernel " .. tostring(st.info[2] or "?")
      .. ", clock " .. tostring(st.info[5] or "?"), note
  elseif k == 2 then
    local id, full, tree, enums
    eachitem(msg, function(ty, o, l)
      if ty == 1 and l == 2 then id = be16(msg, o)
      elseif ty == 2 then full = sub(msg, o + 1, o + l)
      elseif ty == 4 then tree = sub(msg, o + 1, o + l)
      elseif ty == 5 then enums = sub(msg, o + 1, o + l) end
    end)
    if not id then return "FORMAT without an event id", "FORMAT message without an event id (item 1)" end
    full = full or ("event " .. id)
    local old = st.formats[id]
    if old and old.full == full and old.tree == tree and old.enums == enums then
      return "FORMAT " .. full .. " (id " .. id .. ", repeated)", nil
    end
    if not old and st.nformats >= CAP.FORMATS then
      return "FORMAT " .. full .. " (id " .. id .. ")", "more than " .. CAP.FORMATS .. " formats in this scope: ignored"
    end
    if tree and #tree > CAP.TREE then
      return "FORMAT " .. full .. " (id " .. id .. ")", "description tree of " .. #tree .. " bytes (cap " .. CAP.TREE
        .. "): ignored"
    end
    if not charge(st, #full + (tree and #tree or 0) + (enums and #enums or 0) + 64) then
      return "FORMAT " .. full .. " (id " .. id .. ")", BYTES_CAPPED .. "FORMAT ignored"
    end
    if not old then st.nformats = st.nformats + 1 end
    st.formats[id] = { from = number, prev = old, id = id, full = full, tree = tree, enums = enums }
    if old and old.full ~= full then
      return "FORMAT " .. full .. " (id " .. id .. ")", "FORMAT for id " .. id .. " changes the event from " .. old.full
        .. " to " .. full, EF.changed
    end
    return "FORMAT " .. full .. " (id " .. id .. ")", nil
  elseif k == 3 then
    local nsym, nstr, capped = 0, 0, false
    eachitem(msg, function(ty, o, l)
      if (ty == 4 and l >= 24) or (ty == 5 and l >= 12) then
        -- a user stack address of process tgid, resolved by the capture or not (read by stacktrace)
        if st.nsyms >= CAP.SYMBOLS or not charge(st, l + 48) then capped = true; return end
        local e = false
        if ty == 4 then
          local name, mod = sub(msg, o + 25, o + l), nil
          local nm, md = name:match("^(.-) %[(.+)%]$")
          if nm then name, mod = nm, md end
          e = { name, u64at(msg, o + 12), U.new(be32(msg, o + 20), 0), mod }
        end
        st.syms["u" .. be32(msg, o) .. ":" .. u64at(msg, o + 4):tohex()] = e
        st.nsyms = st.nsyms + 1
        nsym = nsym + 1
        return
      end
      if (ty == 1 and l < 20) or ((ty == 2 or ty == 3) and l < 8) then return end
      if ty < 1 or ty > 3 then return end
      local key16 = u64at(msg, o):tohex()
      local known = st.syms[key16] ~= nil or st.printk[key16] ~= nil
      if not known and st.nsyms >= CAP.SYMBOLS then capped = true; return end
      if not charge(st, l + 48) then capped = true; return end
      if not known then st.nsyms = st.nsyms + 1 end
      if ty == 1 then
        local name = sub(msg, o + 21, o + l)
        local mod = nil
        local nm, md = name:match("^(.-) %[(.+)%]$")
        if nm then name, mod = nm, md end
        st.syms[key16] = { name, u64at(msg, o + 8), U.new(be32(msg, o + 16), 0), mod }
        nsym = nsym + 1
      elseif ty == 2 then
        st.printk[key16] = sub(msg, o + 9, o + l)
        nstr = nstr + 1
      else
        if st.syms[key16] == nil then st.syms[key16] = false end
        nsym = nsym + 1
      end
    end)
    if capped then
      note = "more than " .. CAP.SYMBOLS .. " symbols and strings in this scope, or " .. BYTES_CAPPED .. "the rest ignored"
    end
    return "SYMBOLS " .. nsym .. " symbols, " .. nstr .. " strings", note
  elseif k == 4 then
    local n, capped = 0, false
    eachitem(msg, function(ty, o, l)
      if ty ~= 1 or l < 8 then return end
      local pid = be32(msg, o)
      if pid >= 2147483648 then pid = pid - 4294967296 end
      local tgid = be32(msg, o + 4)
      if tgid >= 2147483648 then tgid = tgid - 4294967296 end
      local comm = sub(msg, o + 9, o + math.min(l, 72))
      local old = st.procs[pid]
      if old and old.comm == comm and old.tgid == tgid then n = n + 1; return end
      if st.nprocs >= CAP.PROCS or not charge(st, #comm + 48) then capped = true; return end
      st.nprocs = st.nprocs + 1
      st.procs[pid] = { from = number, prev = old, comm = comm, tgid = tgid }
      n = n + 1
    end)
    if capped then
      note = "more than " .. CAP.PROCS .. " process entries in this scope, or " .. BYTES_CAPPED .. "the rest ignored"
    end
    return "PROCESS " .. n .. " tasks", note
  end
  return nil, nil
end

-- The Info text of an already applied message (a revisit): what applymsg said, without applying.
local function describemsg(k, msg, cpu)
  if k == 1 then
    local info = {}
    eachitem(msg, function(ty, o, l) if ty == 2 or ty == 4 or ty == 5 then info[ty] = sub(msg, o + 1, o + l) end end)
    return "CAPTURE host " .. (info[4] or "?") .. ", kernel " .. (info[2] or "?") .. ", clock " .. (info[5] or "?")
  elseif k == 2 then
    local id, full
    eachitem(msg, function(ty, o, l)
      if ty == 1 and l == 2 then id = be16(msg, o) elseif ty == 2 then full = sub(msg, o + 1, o + l) end
    end)
    return "FORMAT " .. tostring(full) .. " (id " .. tostring(id) .. ")"
  elseif k == 3 then
    local a, b = 0, 0
    eachitem(msg, function(ty) if ty == 2 then b = b + 1 elseif ty == 1 or ty == 3 then a = a + 1 end end)
    return "SYMBOLS " .. a .. " symbols, " .. b .. " strings"
  elseif k == 4 then
    local n = 0
    eachitem(msg, function(ty, _, l) if ty == 1 and l >= 8 then n = n + 1 end end)
    return "PROCESS " .. n .. " tasks"
  end
  return KIND_NAMES[k] or ("kind " .. k)
end

-- The items of message msg (kind k) under tree; r(o, l) gives the range of message bytes [o, o+l).
local CAPTURE_ITEMS = { [1] = "capture id", [2] = "kernel release", [3] = "boot id", [4] = "host name",
  [5] = "trace clock", [6] = "clock offset (ns)", [7] = "clock error bound (ns)", [8] = "long size",
  [9] = "byte order", [10] = "header_page", [11] = "header_event", [12] = "constants", [13] = "tracewire version",
  [14] = "selected events" }
local CAPTURE_FIELDS = { [1] = HF.capture_id, [2] = HF.capture_kernel, [4] = HF.capture_host, [5] = HF.capture_clock }

local function printable(v)
  if #v > 200 then v = sub(v, 1, 200) .. "..." end
  return (v:gsub("[%c\127-\255]", "."))
end

local function msgtree(tree, k, msg, r)
  local stop = eachitem(msg, function(ty, o, l)
    local range = r(o - 6, l + 6)
    local vr = r(o, l)
    local v = sub(msg, o + 1, o + l)
    if k == 1 and CAPTURE_FIELDS[ty] then
      tree:add(CAPTURE_FIELDS[ty], vr, v):set_text(CAPTURE_ITEMS[ty] .. ": " .. printable(v))
      return
    elseif k == 2 and ty == 1 and l == 2 then
      tree:add(HF.format_id, vr, be16(msg, o))
      return
    elseif k == 2 and ty == 2 then
      tree:add(HF.format_name, vr, v)
      return
    elseif k == 3 and l >= 8 and ty >= 1 and ty <= 3 then
      local a = u64at(msg, o)
      local t = tree:add(HF.symbol_address, r(o, 8), a)
      if ty == 1 and l >= 20 then
        local name = sub(msg, o + 21, o + l)
        t:add(HF.symbol_name, r(o + 20, l - 20), name)
        t:set_text("symbol 0x" .. a:tohex() .. ": " .. printable(name) .. " (start 0x" .. u64at(msg, o + 8):tohex()
          .. ", size " .. be32(msg, o + 16) .. ")")
      elseif ty == 2 then
        t:set_text("printk string 0x" .. a:tohex() .. ": \"" .. printable(sub(msg, o + 9, o + l)) .. "\"")
      else
        t:set_text("unknown address 0x" .. a:tohex())
      end
      return
    elseif k == 4 and ty == 1 and l >= 8 then
      local pid = be32(msg, o)
      if pid >= 2147483648 then pid = pid - 4294967296 end
      local tgid = be32(msg, o + 4)
      if tgid >= 2147483648 then tgid = tgid - 4294967296 end
      local comm = sub(msg, o + 9, o + l)
      local t = tree:add(HF.process_pid, r(o, 4), pid)
      t:set_text("task " .. pid .. ": " .. printable(comm) .. " (tgid " .. tgid .. ")")
      t:add(HF.process_tgid, r(o + 4, 4), tgid)
      t:add(HF.process_comm, r(o + 8, l - 8), comm)
      return
    elseif k == 5 and ty == 1 and l == 8 then
      tree:add(HF.lost, vr, u64at(msg, o))
      return
    end
    local t = tree:add(HF.item, range)
    local label = (k == 1 and CAPTURE_ITEMS[ty]) or ("item " .. ty)
    if k == 1 and (ty == 8 or ty == 9) and l >= 1 then
      t:set_text(label .. ": " .. byte(msg, o + 1))
    elseif k == 1 and (ty == 6 or ty == 7) and l == 8 then
      local x = u64at(msg, o)
      t:set_text(label .. ": " .. (ty == 6 and tostring(tos64(x)) or tostring(x)))
    elseif (k == 1 and ty ~= 6 and ty ~= 7) or (k == 2 and ty ~= 4) then
      t:set_text(label .. " (" .. l .. " bytes): " .. printable(v))
    else
      t:set_text(label .. " (" .. l .. " bytes)")
    end
    t:add(HF.item_type, r(o - 6, 2))
  end)
  return stop
end

-- Adds fragment frag (index, count, total length) of message (scope key, kind k, id) seen in frame
-- number; returns the whole message when this fragment completes it, else nil; and an expert text
-- (a dropped message) or nil.
local function reassemble(key, k, id, index, count, total, frag, number)
  local pk = tostring(key) .. "/" .. k .. "/" .. id
  local p = PENDING[pk]
  if p and (p.count ~= count or p.total ~= total) then
    -- the sender restarted this message id with another shape: the old parts are useless
    PENDING[pk] = nil; NPENDING = NPENDING - 1; PENDING_BYTES = PENDING_BYTES - p.bytes
    p = nil
  end
  if not p then
    if total > CAP.MESSAGE then
      return nil, "message of " .. total .. " bytes is larger than the cap (" .. CAP.MESSAGE .. "): dropped"
    end
    local note = nil
    if NPENDING >= CAP.PENDING then
      -- evict the oldest message being reassembled
      local oldk, oldp = nil, nil
      for kk, pp in pairs(PENDING) do if oldp == nil or pp.order < oldp.order then oldk, oldp = kk, pp end end
      PENDING[oldk] = nil; NPENDING = NPENDING - 1; PENDING_BYTES = PENDING_BYTES - oldp.bytes
      note = "more than " .. CAP.PENDING .. " messages in reassembly: message " .. oldk .. " (first fragment in frame "
        .. oldp.first .. ") dropped"
    end
    PENDING_ORDER = PENDING_ORDER + 1
    p = { count = count, total = total, parts = {}, got = 0, bytes = 0, first = number, order = PENDING_ORDER, frames = {} }
    PENDING[pk] = p
    NPENDING = NPENDING + 1
    if note then return nil, note end
  end
  if p.parts[index] == nil then
    if PENDING_BYTES + #frag > CAP.PENDING_BYTES then
      PENDING[pk] = nil; NPENDING = NPENDING - 1; PENDING_BYTES = PENDING_BYTES - p.bytes
      return nil, "reassembly buffers full (" .. CAP.PENDING_BYTES .. " bytes): message " .. pk .. " dropped"
    end
    p.parts[index] = frag
    p.got = p.got + 1
    p.bytes = p.bytes + #frag
    PENDING_BYTES = PENDING_BYTES + #frag
    p.frames[#p.frames + 1] = number
  end
  if p.got < count then return nil, nil end
  PENDING[pk] = nil; NPENDING = NPENDING - 1; PENDING_BYTES = PENDING_BYTES - p.bytes
  local msg = table.concat(p.parts, "", 0, count - 1)
  local f = #p.parts[0]
  for i = 0, count - 2 do
    if #p.parts[i] ~= f then return nil, "fragment " .. i .. " of message " .. pk .. " is not " .. f .. " bytes long like fragment 0: dropped" end
  end
  if #msg ~= total then
    return nil, "message " .. pk .. " has " .. #msg .. " bytes, its fragments said " .. total .. ": dropped"
  end
  for _, fr in ipairs(p.frames) do
    if NREASSEMBLED_IN < 1000000 then
      REASSEMBLED_IN[fr] = number
      NREASSEMBLED_IN = NREASSEMBLED_IN + 1
    end
  end
  return msg, nil
end

-- A context frame (kinds 1-5): s the frame, key its scope, fbase the frame offset of the tracewire
-- header (14 with Ethernet, 0 in pcapng), for messages.
function dissectcontext(tvb, pinfo, tree, mode, s, len, k, cpu, key, fbase)
  local name = KIND_NAMES[k]
  if len < 28 then
    tree:add_proto_expert_info(EF.malformed, name .. " body shorter than 12 bytes (frame offset " .. (fbase + 16) .. ")")
    pinfo.cols.info = name .. ": malformed (short body)"
    return
  end
  local id, index, count, total = be32(s, 16), be16(s, 20), be16(s, 22), be32(s, 24)
  local frag = sub(s, 29)
  if mode > 0 then
    tree:add(HF.msg_id, tvb(16, 4))
    tree:add(HF.frag_index, tvb(20, 2))
    tree:add(HF.frag_count, tvb(22, 2))
    tree:add(HF.msg_len, tvb(24, 4))
  end
  if index >= count then
    tree:add_proto_expert_info(EF.malformed, "fragment index " .. index .. " >= fragment count " .. count
      .. " (frame offset " .. (fbase + 20) .. ")")
    pinfo.cols.info = name .. ": malformed (fragment index)"
    return
  end
  -- fragment 0 fixes the fragment size F: fragment i holds bytes [i*F, ...). Fragment 0 of a
  -- message of several fragments is a full one; the others are checked on completion.
  if #frag > total or (count == 1 and #frag ~= total) or (index > 0 and index * #frag > total) then
    tree:add_proto_expert_info(EF.malformed, "fragment " .. index .. " of " .. count .. " (" .. #frag
      .. " bytes) does not fit the message length " .. total .. " (frame offset " .. (fbase + 28) .. ")")
    pinfo.cols.info = name .. ": malformed (fragment length)"
    return
  end
  local number = pinfo.number
  local msg, note = nil, nil
  local info
  if not pinfo.visited then
    if count == 1 then msg = frag else msg, note = reassemble(key, k, id, index, count, total, frag, number) end
    if msg then
      if count > 1 and REVISIT_BYTES + #msg <= CAP.REVISIT_BYTES then
        REVISIT[number] = msg
        REVISIT_BYTES = REVISIT_BYTES + #msg
      end
      if k == 5 then
        info = nil
      else
        local ok, i, n2, ef = pcall(applymsg, key, k, msg, number)
        if ok then
          info = i
          if n2 then tree:add_proto_expert_info(ef or EF.cap, n2) end
        else
          tree:add_proto_expert_info(EF.internal, "applying the message failed: " .. tostring(type(i) == "table" and i.tw or i))
        end
      end
    end
    if note then tree:add_proto_expert_info(EF.fragment, note) end
  else
    if count == 1 then msg = frag else msg = REVISIT[number] end
    if msg and k ~= 5 then info = describemsg(k, msg, cpu) end
  end
  if msg then
    local stop = eachitem(msg, function() end)
    if stop then
      tree:add_proto_expert_info(EF.malformed, "item at message offset " .. stop .. " runs past the message end ("
        .. #msg .. " bytes): the message ends there")
    end
    if k == 5 then
      local lost = nil
      eachitem(msg, function(ty, o, l) if ty == 1 and l == 8 then lost = u64at(msg, o) end end)
      if lost then
        info = "LOST " .. tostring(lost) .. " events on CPU " .. cpu
        tree:add_proto_expert_info(EF.lost, tostring(lost) .. " events lost on CPU " .. cpu)
      else
        info = "LOST without a count"
      end
    end
    if mode > 0 then
      local r
      if count == 1 then
        r = function(o, l) return tvb(28 + o, l) end
      else
        local ok, ba = pcall(ByteArray.new, msg, true)
        local mt = ok and ba:tvb("tracewire " .. name .. " message " .. id)
        if mt then r = function(o, l) return mt(o, l) end else r = function() return tvb(0, 0) end end
      end
      local t = tree:add(HF.item, tvb(28, len - 28))
      t:set_text(name .. " message " .. id .. " (" .. #msg .. " bytes)")
      msgtree(t, k, msg, r)
    end
  else
    info = name .. " message " .. id .. ", fragment " .. (index + 1) .. " of " .. count
    local done = REASSEMBLED_IN[number]
    if done and mode > 0 then tree:add(HF.msg_frame, tvb(0, 0), done):set_generated() end
  end
  pinfo.cols.info = info or (name .. " message " .. id)
end
end)()

function tw.init()
  anreset()
  resetcontext()
end
---------------------------------------------------------------------------- dissection

-- The task of pid at frame number in state st (PROCESS context): comm, tgid (nil when unknown).
-- As the kernel's text names tasks (core's SavedCmdlines): pid 0 is "<idle>", a pid the context
-- does not name "<...>", a negative one "<XXX>".
local function procat(st, pid, number)
  if pid == 0 then return "<idle>", 0 end
  if pid < 0 then return "<XXX>", nil end
  local p = st and st.procs[pid]
  while p and p.from > number do p = p.prev end
  if p then return p.comm, p.tgid end
  return "<...>", nil
end

-- All typed ProtoFields of event ev (its fields and their bits), for mode 1's referenced check.
local function allfields(ev)
  local l = ev.allpf
  if l == nil then
    l = {}
    if ev.pfs then
      for i = 1, #ev.f do
        l[#l + 1] = ev.pfs[i]
        if ev.tpfs[i] then l[#l + 1] = ev.tpfs[i] end
        local b = ev.bits[i]
        if b then for k = 1, #b do l[#l + 1] = b[k] end end
      end
    end
    ev.allpf = l
  end
  return l
end

-- The items of an EVENT frame (modes 1 and 2), as the kernel's text reads: the event's fields
-- first (each as the kernel prints it), the latency analysis, then a "Header" subtree with the
-- 16-byte header, the record's struct trace_entry and the task's names from the context.
local function eventtree(tvb, tree, mode, ctx, st, pid, number, bodytext, cpu, comm, tgid)
  local ev = ctx.ev
  local le = ctx.le
  if mode == 2 then
    tree:append_text(", " .. (ev and ev.full or "unknown event") .. ", " .. comm .. "-" .. pid .. ", CPU " .. cpu)
  end
  if ev then
    local typed = ev.pfs ~= nil
    local generic = mode == 2 or anyref(tree, GENERIC_GROUP)
    if generic or (typed and (mode == 2 or anyref(tree, allfields(ev)))) then
      for i = 1, #ev.f do
        local shown = false
        if typed then shown = typeditem(tree, mode, tvb, ctx, i) end
        if not shown and generic then genericitem(tree, tvb, ctx, i) end
      end
    end
  elseif mode == 2 or ref(tree, HF.payload) then
    tree:add(HF.payload, tvb(16, ctx.pl))
  end
  if ev then stacktrace(ctx, tree, mode, tvb) end
  antree(tree, mode, tvb, number, ev)
  local h = tree
  if mode == 2 or ref(tree, HF.header) then h = tree:add(HF.header, tvb(0, 24)) end
  hdrtree(h, mode, tvb)
  if mode == 2 or ref(tree, HF.event_id) then
    if le then h:add_le(HF.event_id, tvb(16, 2)) else h:add(HF.event_id, tvb(16, 2)) end
  end
  bitsitem(h, mode, tvb, 18, HF.common_flags, CF_BITS)
  bitsitem(h, mode, tvb, 19, HF.preempt_count, PC_BITS)
  local wcomm = mode == 2 or ref(tree, HF.comm)
  local wtgid = mode == 2 or ref(tree, HF.tgid)
  if mode == 2 or wcomm or wtgid or ref(tree, HF.pid) then
    local pr = tvb(20, 4)
    if le then h:add_le(HF.pid, pr) else h:add(HF.pid, pr) end
    if comm and wcomm then h:add(HF.comm, pr, comm):set_generated() end
    if tgid and wtgid then h:add(HF.tgid, pr, tgid):set_generated() end
  end
  if ev and (mode == 2 or ref(tree, HF.event)) then h:add(HF.event, tvb(16, 2), ev.full):set_generated() end
  if mode == 2 or ref(tree, HF.text) then
    h:add(HF.text, tvb(0, 0), bodytext):set_generated()
  end
end

-- How an empty address (AT_NONE) prints.
local NOADDR = { [""] = true, NONE = true }

-- One evaluation context, reused by every frame (dissection is not re-entrant): see fieldval.
local CTX = {}

local function dissect(tvb, pinfo, root)
  local len = tvb:len()
  local cols = pinfo.cols
  cols.protocol = "TRACEWIRE"
  local mode = 0
  if root.visible then mode = 2 elseif root.text ~= nil then mode = 1 end
  local number = pinfo.number
  newpass(number)
  -- tree: the protocol item (modes 1, 2) or, without a tree, the root (for expert infos only)
  local tree = root
  -- (without a visible tree the item needs no range: one userdata less per frame)
  if mode == 2 then tree = root:add(tw, tvb()) elseif mode == 1 then tree = root:add(tw) end
  -- USER15 records (pcapng) are the whole frame; Ethernet frames come after a 14-byte header
  local pcapng = tvb:reported_len() == pinfo.len
  local fbase = pcapng and 0 or 14
  if len < 1 then
    tree:add_proto_expert_info(EF.malformed, "Empty frame")
    cols.info = "tracewire: malformed (empty)"
    return len
  end
  local s = tvb:raw(0, len)
  local version = byte(s, 1)
  if version ~= 2 then
    if version == 0x54 then
      tree:add_proto_expert_info(EF.version, "tracewire wire format version 1: recapture with this tracewire "
        .. "(this dissector reads version " .. TW_VERSION .. ")")
      cols.info = "tracewire wire format version 1 (not decoded)"
    else
      tree:add_proto_expert_info(EF.version, "Unknown wire format version " .. version .. " (frame offset " .. fbase
        .. "): not decoded")
      cols.info = "tracewire: unknown version " .. version
    end
    return len
  end
  if len < 16 then
    tree:add_proto_expert_info(EF.malformed, "Frame of " .. len .. " bytes ends inside the 16-byte header (frame offset "
      .. (fbase + len) .. ")")
    cols.info = "tracewire: malformed (short header)"
    return len
  end
  local kf = byte(s, 2)
  local k = kf % 16
  -- context frames: the header first (an EVENT frame's header comes after its fields: eventtree)
  if mode > 0 and k ~= 0 then hdrtree(tree, mode, tvb) end
  local flags = kf - k
  local cpu = be16(s, 2)
  local key
  if pcapng then
    local fi = F_IFID()
    key = fi and fi.value or 0
  else
    key = tostring(pinfo.dl_src)
  end
  if k ~= 0 then
    if k > 5 then
      tree:add_proto_expert_info(EF.reserved, "Reserved frame kind " .. k .. ": skipped")
      cols.info = "tracewire: reserved kind " .. k
      return len
    end
    dissectcontext(tvb, pinfo, tree, mode, s, len, k, cpu, key, fbase)
    return len
  end
  -- EVENT: the record payload from header offset 16
  local pl = len - 16
  if pl < 8 then
    if mode > 0 then hdrtree(tree, mode, tvb) end
    tree:add_proto_expert_info(EF.malformed, "EVENT body of " .. pl .. " bytes is shorter than 8 (frame offset "
      .. (fbase + 16) .. ")")
    cols.info = "tracewire: malformed (short event)"
    return len
  end
  local le = flags % 32 >= 16
  local id, pid
  if le then
    id = byte(s, 18) * 256 + byte(s, 17)
    local a, b, c, d = byte(s, 21, 24)
    pid = ((d * 256 + c) * 256 + b) * 256 + a
  else
    id = be16(s, 16)
    pid = be32(s, 20)
  end
  if pid >= 2147483648 then pid = pid - 4294967296 end
  local st = scopeat(key, number)
  local ev, nocontext, why = nil, false, nil
  local fmt = st and st.formats[id]
  if fmt then
    while fmt and fmt.from > number do fmt = fmt.prev end
  end
  if fmt then
    ev = fmtev(fmt) or nil
    if fmt.why and not (ev and ev.desc) then why = fmt.why end
    nocontext = (fmt.nodesc and ev ~= nil) or false
  else
    ev = EVENTS[id]
    nocontext = ev ~= nil
  end
  LONG = st and st.long or TW_LONG_SIZE
  local ctx = CTX
  ctx.ev = ev or nil; ctx.s = s; ctx.b = 16; ctx.pl = pl; ctx.le = le; ctx.pd = nil; ctx.cx = st; ctx.rendered = nil
  -- latency analysis: every frame of the first pass, in order, with or without a tree
  analyse(ctx, number, cpu, pid)
  local bodytext
  if ev then
    local ok, r = pcall(eventtext, ctx)
    if ok then bodytext = r
    else
      tree:add_proto_expert_info(EF.internal, "Info text failed: " .. tostring(type(r) == "table" and r.tw or r))
      bodytext = ev.n .. ": " .. fallbacktext(ctx)
    end
    if ev.pferr and ev.desc then
      tree:add_proto_expert_info(EF.malformed, "print fmt of " .. ev.full .. " in its FORMAT description: " .. ev.pferr)
    end
  else
    local nm = fmt and fmt.full or ("event " .. id)
    tree:add_proto_expert_info(EF.unknown, "Unknown event " .. nm .. " (id " .. id .. "): "
      .. (fmt and (why or "its FORMAT has no description tree and it is not in this dissector's tables")
        or "no FORMAT context for it and not in this dissector's tables")
      .. "; payload shown raw")
    bodytext = (nm:match(":(.*)$") or nm) .. ": " .. bytestext(s, 16, len)
  end
  if why and ev then
    tree:add_proto_expert_info(EF.malformed, "FORMAT of " .. ev.full .. ": " .. why .. "; decoded with this dissector's tables")
  end
  if nocontext then
    tree:add_proto_expert_info(EF.no_context, (fmt and ("The FORMAT of event id " .. id .. " has no description tree")
      or ("No FORMAT context for event id " .. id .. " in this capture (yet)")) .. ": decoded with this dissector's "
      .. "tables for " .. ev.full .. " (generated from " .. TW_GEN_SOURCE .. ")")
  end
  if flags % 64 >= 32 then
    tree:add_proto_expert_info(EF.truncated, "Truncated event: " .. pl .. " payload bytes captured")
  end
  -- the packet list's Source and Destination: the task as the kernel's text names it, the CPU
  local comm, tgid = procat(st, pid, number)
  if not pcapng then
    -- Ethernet (a TAP, a live capture): Wireshark fills these columns from pinfo.src/dst (the MAC
    -- addresses) after dissection; without a network layer net_src/net_dst are empty (AT_NONE),
    -- and an empty address leaves the columns' text as set here
    local ns, nd = pinfo.net_src, pinfo.net_dst
    if NOADDR[tostring(ns)] and NOADDR[tostring(nd)] then pinfo.src = ns; pinfo.dst = nd end
  end
  cols.src = comm .. "-" .. pid
  cols.dst = "CPU " .. cpu
  if mode == 2 or (mode == 1 and (anyref(tree, EVENT_ITEMS) or anyref(tree, HDR_FIELDS)
      or (ev and anyref(tree, allfields(ev))))) then
    eventtree(tvb, tree, mode, ctx, st, pid, number, bodytext, cpu, comm, tgid)
  end
  cols.info = bodytext
  return len
end

function tw.dissector(tvb, pinfo, root)
  local ok, r = pcall(dissect, tvb, pinfo, root)
  if ok then return r end
  local t = root:add(tw, tvb())
  t:add_proto_expert_info(EF.internal, "Dissector internal error: " .. tostring(type(r) == "table" and r.tw or r))
  return tvb:len()
end

local registered_type = nil
local function register()
  local et = DissectorTable.get("ethertype")
  if registered_type then et:remove(registered_type, tw) end
  registered_type = tw.prefs.ethertype
  et:add(registered_type, tw)
end

function tw.prefs_changed()
  if registered_type ~= tw.prefs.ethertype then register() end
end

register()
DissectorTable.get("wtap_encap"):add(wtap.USER15, tw)
