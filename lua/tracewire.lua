-- tracewire.lua: the Wireshark dissector runtime for tracewire frames (EtherType 0x88B5).
--
-- Implements docs/wire-format.md: the 48-byte big-endian header, TLV walking, a generic
-- fallback that shows any event by name with its raw TLVs, expert infos, and an evaluator for
-- print fmts (C expressions with the kernel's vsprintf semantics) that the generator
-- (dissector-gen, org.tracewire.dissector) emits as data tables between the two EVENT TABLES
-- markers below. On its own this file is a complete, generic dissector (no event tables).
--
-- Compatibility: Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). No bit operators, no bit32,
-- no integer division: 64-bit arithmetic uses Wireshark's UInt64/Int64, every read is
-- length-checked, and per-frame work runs under pcall so a hostile frame yields expert info.

local TW_VERSION = "1"
-- Replaced by the generator: the format identity hash (16 hex digits) the tables were made from,
-- the traced kernel's long size, and a label of the source.
local TW_GEN_HASH = nil
local TW_LONG_SIZE = 8
local TW_GEN_SOURCE = "runtime only (no event tables)"

local tw = Proto("tracewire", "tracewire trace event")
tw.prefs.ethertype = Pref.uint("EtherType", 0x88B5, "EtherType of tracewire frames, in decimal (default 34997 = 0x88B5)")
tw.prefs.check_hash = Pref.bool("Warn on other formats", true,
  "Warn when a frame's format identity hash differs from the one this dissector was generated for")
tw.prefs.kallsyms = Pref.string("kallsyms file", "",
  "The traced kernel's /proc/kallsyms (same boot) to print %pS/%ps symbols like the kernel; empty: off")
tw.prefs.printk_formats = Pref.string("printk_formats file", "",
  "The traced kernel's tracefs printk_formats, for %s of format-string pointers; empty: off")
tw.prefs.hz = Pref.uint("HZ", 0, "The traced kernel's CONFIG_HZ, for jiffies_to_msecs; 0: unknown")

---------------------------------------------------------------------------- header fields
local HF = {
  magic = ProtoField.uint16("tracewire.magic", "Magic", base.HEX),
  version = ProtoField.uint8("tracewire.version", "Version", base.DEC),
  flags = ProtoField.uint8("tracewire.flags", "Flags", base.HEX),
  flags_le = ProtoField.bool("tracewire.flags.little_endian", "Little-endian values", 8, nil, 0x01),
  flags_trunc = ProtoField.bool("tracewire.flags.truncated", "Truncated", 8, nil, 0x02),
  flags_lostunk = ProtoField.bool("tracewire.flags.lost_unknown", "Lost count unknown", 8, nil, 0x04),
  flags_raw = ProtoField.bool("tracewire.flags.raw_clock", "Raw trace clock", 8, nil, 0x08),
  flags_res = ProtoField.uint8("tracewire.flags.reserved", "Reserved", base.HEX, nil, 0xF0),
  hdr_len = ProtoField.uint16("tracewire.header_length", "Header length", base.DEC),
  cpu = ProtoField.uint16("tracewire.cpu", "CPU", base.DEC),
  event_id = ProtoField.uint16("tracewire.event_id", "Event id", base.DEC),
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
  time = ProtoField.uint64("tracewire.time", "Time (ns)", base.DEC),
  seq = ProtoField.uint64("tracewire.seq", "Sequence", base.DEC),
  lost = ProtoField.uint32("tracewire.lost", "Lost events", base.DEC),
  orig_len = ProtoField.uint16("tracewire.original_tlv_length", "Original TLV length", base.DEC),
  tlv_len = ProtoField.uint16("tracewire.tlv_length", "TLV length", base.DEC),
  format_hash = ProtoField.uint64("tracewire.format_hash", "Format identity hash", base.HEX),
  event = ProtoField.string("tracewire.event", "Event"),
  text = ProtoField.string("tracewire.text", "Text"),
  tlv = ProtoField.bytes("tracewire.tlv", "TLV"),
  tlv_type = ProtoField.uint16("tracewire.tlv.type", "Type", base.DEC),
  tlv_length = ProtoField.uint16("tracewire.tlv.length", "Length", base.DEC),
  tlv_value = ProtoField.bytes("tracewire.tlv.value", "Value"),
}

local EF = {
  lost = ProtoExpert.new("tracewire.expert.lost", "Events lost", expert.group.SEQUENCE, expert.severity.WARN),
  lost_unknown = ProtoExpert.new("tracewire.expert.lost_unknown", "Events lost, count unknown",
    expert.group.SEQUENCE, expert.severity.WARN),
  truncated = ProtoExpert.new("tracewire.expert.truncated", "Truncated event", expert.group.MALFORMED, expert.severity.WARN),
  unknown = ProtoExpert.new("tracewire.expert.unknown_event", "Unknown event", expert.group.UNDECODED, expert.severity.NOTE),
  malformed = ProtoExpert.new("tracewire.expert.malformed", "Malformed frame", expert.group.MALFORMED, expert.severity.ERROR),
  other_formats = ProtoExpert.new("tracewire.expert.other_formats", "Dissector generated for other formats",
    expert.group.PROTOCOL, expert.severity.WARN),
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

---------------------------------------------------------------------------- 64-bit helpers
local U = UInt64
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
local function number(num, base, flags, width, precision)
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
  if not locase then d = d:upper() end
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
  if width > MAX_WIDTH then width = MAX_WIDTH end
  if precision >= 0 and #s > precision then s = s:sub(1, precision) end
  local pad = width - #s
  if pad <= 0 then return s end
  if has(flags, LEFT) then return s .. string.rep(" ", pad) end
  return string.rep(" ", pad) .. s
end

local function hex2(b) return string.format("%02x", b) end

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

local function ipaddr(m, ext, le)
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

local function mac(m, ext)
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

local function uuid(m, ext)
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
  local ls = TW_LONG_SIZE
  local word = math.floor(n / (ls * 8))
  local b = n % (ls * 8)
  local off = m.o + word * ls
  if off + ls > m.l then return false end
  local w = rdu(m.d, off, ls, le)
  return w:rshift(b):band(U1) == U1
end

local function bitmap(m, nrbits, list, le)
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

local function hexstring(m, ext, width)
  local len = width < 0 and 1 or math.min(width, 64)
  len = math.min(len, m.l - m.o)
  local sepc = ext:sub(2, 2)
  local sep = " "
  if sepc == "C" then sep = ":" elseif sepc == "D" then sep = "-" elseif sepc == "N" then sep = "" end
  local t = {}
  for i = 0, len - 1 do t[#t + 1] = hex2(m.d:byte(m.o + 1 + i)) end
  return table.concat(t, sep)
end

---------------------------------------------------------------------------- host context
-- Opt-in (preferences): the traced kernel's /proc/kallsyms for %pS and friends, its
-- printk_formats for %s of a format-string pointer, and its CONFIG_HZ for jiffies_to_msecs.
-- Off by default: a capture from another boot or host would be resolved wrongly.
local SYMS = nil        -- { addrs = { "16 hex digits" }, names = {}, mods = {}, sizes = { UInt64 } }
local SYMS_PATH = nil
local PRINTK = nil      -- { ["16 hex digits"] = string }
local PRINTK_PATH = nil

local function hex16(u) return u:tohex() end

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

local function symbols()
  local path = tw.prefs.kallsyms
  if path == nil or path == "" then return nil end
  if SYMS_PATH ~= path then SYMS = loadsyms(path); SYMS_PATH = path end
  return SYMS
end

local function lookupsym(t, addr)
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

local function unescape_c(s)
  local map = { n = "\n", t = "\t", r = "\r", a = "\a", b = "\b", f = "\f", v = "\v", e = "\27" }
  return (s:gsub("\\([0-7][0-7]?[0-7]?)", function(o) return string.char(tonumber(o, 8) % 256) end)
    :gsub("\\(.)", function(c) return map[c] or c end))
end

local function printk()
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

---------------------------------------------------------------------------- evaluator
-- Node tags of the evaluator's internal form, made once per event from the generated print table
-- (see compileprint below): { tag, ... } with positional operands.
local N_LIT, N_STR, N_FLD, N_ERR, N_IDX, N_UN, N_BIN, N_TERN, N_CAST, N_CALL, N_BRACE, N_SIZEOF =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
-- Fields whose bytes sit behind a __data_loc/__rel_loc word.
local DYNAMIC = { dynamic_string = true, dynamic_array = true, dynamic_cpumask = true }

local eval
local fastfield
local byte, sub, find = string.byte, string.sub, string.find

-- ctx: { ev = event table, v = { [i] = TLV value string or nil }, le = bool }
local function fieldval(ctx, i)
  local f = ctx.ev.f[i]
  local d = ctx.v[i]
  if not f then fail("no field " .. i) end
  if d == nil then fail("field " .. f.name .. " is not in the frame") end
  local kind, size, signed = f.kind, f.size, f.signed
  if kind == "int" then
    if size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8 then fail("field size " .. size) end
    if #d ~= size then fail("field " .. f.name .. " has " .. #d .. " bytes") end
    return int(rdu(d, 0, size, ctx.le), size, signed)
  elseif kind == "pointer" then
    if #d ~= size then fail("field " .. f.name .. " has " .. #d .. " bytes") end
    return { k = "i", b = rdu(d, 0, size, ctx.le), s = size, g = false, p = true }
  elseif kind == "char_array" then
    if size > 0 and #d < size then d = d .. string.rep("\0", size - #d) end
    if size == 0 then d = d .. "\0" end
    return { k = "m", d = d, o = 0, l = #d, es = 1, eg = signed }
  else
    local es = f.elem_size or 1
    if es < 1 then es = 1 end
    if (kind == "array" or kind == "opaque") and size > 0 and #d ~= size then
      fail("field " .. f.name .. " has " .. #d .. " bytes")
    end
    return { k = "m", d = d, o = 0, l = #d, es = es, eg = signed }
  end
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
        local d = ctx.v[e[2]]
        if d == nil or #d < f.size then fail("field outside the record") end
        return { k = "m", d = d, o = 0, l = f.size, es = f.size, eg = f.signed }
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
    return { k = "i", b = ext(v.b, TW_LONG_SIZE, false), s = TW_LONG_SIZE, g = false, p = true }
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
local ENTRYNUMS = {}
local function entrynums(n, first, u64)
  local r = ENTRYNUMS[n]
  if r ~= nil then return r end
  r = {}
  local i = first
  while n[i] ~= nil do
    local e = n[i]
    if e[1] ~= N_BRACE or #e ~= 3 or e[2][1] ~= N_LIT or e[2][2].k ~= "i" then r = false; break end
    local m = e[2][2].b
    if not u64 then m = ext(m, TW_LONG_SIZE, false) end
    if m:higher() ~= 0 then r = false; break end
    r[i] = m:lower()
    i = i + 1
  end
  ENTRYNUMS[n] = r
  return r
end

local function printflags(ctx, n, u64)
  local flags = asint(eval(ctx, n[3]), "__print_flags").b
  if not u64 then flags = ext(flags, TW_LONG_SIZE, false) end
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
      if not u64 then mask = ext(mask, TW_LONG_SIZE, false) end
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

local SYMMAPS = {}
local function printsymbolic(ctx, n, u64)
  local val = asint(eval(ctx, n[3]), "__print_symbolic").b
  if not u64 then val = ext(val, TW_LONG_SIZE, false) end
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
      if not u64 then key = ext(key, TW_LONG_SIZE, false) end
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
    if hz <= 0 then fail("jiffies_to_msecs needs HZ") end
    local j = asint(eval(ctx, n[3])).b
    if TW_LONG_SIZE ~= 8 then j = j:band(MASKS[4]) end
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
  elseif t == N_BRACE then fail("brace list outside a print table")
  elseif t == N_SIZEOF then
    local v = eval(ctx, n[2])
    if v.k == "i" then return int(U.new(v.s, 0), TW_LONG_SIZE, false) end
    if v.k == "m" and n[2][1] == N_IDX then return int(U.new(v.es, 0), TW_LONG_SIZE, false) end
    fail("sizeof of this expression is not supported")
  end
  fail("unknown expression")
end

-- Compiled conversion: { flag bits, width, precision, size, conv, ext, text }; width/precision -1
-- absent, -2 '*'.
local function stringof(v, precision)
  if v.k == "t" then return v.t end
  if v.k == "m" then return cstring(v, precision >= 0 and precision or nil) end
  if v.b == U0 then return "(null)" end
  local pk = printk()
  local str = pk and pk[hex16(v.b)]
  if str == nil then fail("string pointer not in printk_formats") end
  return str
end

local function pointer(ctx, c, flags, width, precision, v)
  local e = c[6]
  local k = e:sub(1, 1)
  if k == "" or k == "x" then
    if v.k ~= "i" then fail("the address is not known") end
    if width < 0 then width = 2 * TW_LONG_SIZE; flags = bit.bor(flags, ZEROPAD) end
    return number(ext(v.b, TW_LONG_SIZE, false), 16, bit.bor(flags, SMALL), width, precision)
  elseif k == "S" or k == "s" or k == "B" or k == "F" or k == "f" then
    if v.k ~= "i" then fail("the address is not known") end
    local t = symbols()
    local addr = v.b
    local name, off, size, mod
    if t then
      name, off, size, mod = lookupsym(t, (k == "B") and (addr - U1) or addr)
    end
    local s
    if name == nil then
      if t == nil and addr ~= U0 then fail("%p" .. e .. " needs a symbol table") end
      s = "0x" .. digits(ext(addr, TW_LONG_SIZE, false), 16)
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
local POW = { [1] = 256, [2] = 65536, [4] = 4294967296 }
local HALF = { [1] = 128, [2] = 32768, [4] = 2147483648 }
local BASES = { d = 10, i = 10, u = 10, o = 8, x = 16, X = 16 }

-- The text of a conversion whose argument is field fi itself, computed with Lua numbers and
-- strings (no UInt64, no value tables): %s of a char array, and %d %i %u %o %x %X %c of an
-- integer field of 1, 2 or 4 bytes. Returns nil when the slow path must decide (anything else,
-- or a field missing or of the wrong length: the slow path then reports the error).
fastfield = function(ctx, fi, conv, csize, flags, width, precision)
  local f = ctx.ev.f[fi]
  local d = ctx.v[fi]
  if f == nil or d == nil then return nil end
  local kind = f.kind
  if conv == "s" then
    if kind ~= "char_array" then return nil end
    local z = find(d, "\0", 1, true)
    if z then d = sub(d, 1, z - 1) end
    return vstring(d, flags, width, precision)
  end
  local size = f.size
  if kind ~= "int" or #d ~= size or POW[size] == nil then return nil end
  local u = 0
  if ctx.le then
    for k = size, 1, -1 do u = u * 256 + byte(d, k) end
  else
    for k = 1, size do u = u * 256 + byte(d, k) end
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
  if conv == "x" then flags = bit.bor(flags, SMALL) end
  if signed then flags = bit.bor(flags, SIGN) end
  return number(u, base, flags, width, precision)
end

-- Renders a compiled print fmt: pf = { segments, args } (compileprint).
local function render(ctx, pf)
  local segs, args = pf[1], pf[2]
  local out = {}
  local ai = 1
  for si = 1, #segs do
    local c = segs[si]
    if type(c) == "string" then
      out[#out + 1] = c
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
      if fi then fast = fastfield(ctx, fi, conv, c[4], flags, width, precision) end
      if fast then
        out[#out + 1] = fast
      else
      local v = eval(ctx, a)
      if conv == "c" then
        local ch = asint(v, c[7]).b:band(MASKS[1]):lower()
        out[#out + 1] = vstring(string.char(ch), flags, width, -1)
      elseif conv == "s" then
        out[#out + 1] = vstring(stringof(v, precision), flags, width, precision)
      elseif conv == "p" then
        out[#out + 1] = pointer(ctx, c, flags, width, precision, v)
      else
        local i = asint(v, c[7])
        local signed = conv == "d" or conv == "i"
        local num = ext(i.b, c[4], signed)
        local base = 10
        if conv == "o" then base = 8
        elseif conv == "x" then base = 16; flags = bit.bor(flags, SMALL)
        elseif conv == "X" then base = 16 end
        if signed then flags = bit.bor(flags, SIGN) end
        out[#out + 1] = number(num, base, flags, width, precision)
      end
      end
    end
  end
  return table.concat(out)
end

---------------------------------------------------------------------------- print tables
-- The generator's print table (named keys: docs/dissector.md, "Generated file") becomes the
-- evaluator's internal form once per event, when its first frame is shown: { segments, args } of
-- positional nodes, field names resolved to TLV indexes, constants to values, flag characters to
-- bits. Subtrees the generator shares (locals of the print function) are compiled once.
local FLAGBITS = { ["-"] = LEFT, ["+"] = PLUS, [" "] = SPACE, ["#"] = SPECIAL, ["0"] = ZEROPAD }
local INTTYPES = {}

-- "s32", "u64", ...: size in bytes and signedness.
local function inttype(t)
  local r = INTTYPES[t]
  if r == nil then
    local sg, bits = tostring(t):match("^([su])(%d+)$")
    if not sg then error("tracewire: bad integer type " .. tostring(t)) end
    r = { math.floor(tonumber(bits) / 8), sg == "s" }
    INTTYPES[t] = r
  end
  return r[1], r[2]
end

-- A constant: v is a number or a "0x" followed by 16 hex digits.
local function constant(v, t)
  local size, signed = inttype(t)
  local b
  if type(v) == "string" then b = U.fromhex(v:sub(3))
  elseif v >= 0 then b = U.new(v, 0)
  else b = U0 - U.new(-v, 0) end
  local v = int(b, size, signed)
  v.c = {}   -- a constant: its promoted and converted forms are kept here (see convert)
  return { N_LIT, v }
end

local compilenode

local function compilelist(ev, list, memo, into)
  for i = 1, #list do into[#into + 1] = compilenode(ev, list[i], memo) end
  return into
end

compilenode = function(ev, n, memo)
  local t = type(n)
  if t == "number" then return constant(n, "s32") end
  if t == "string" then return { N_STR, n, text(n) } end
  local c = memo[n]
  if c then return c end
  if n.int ~= nil then
    c = constant(n.int, n.type)
  elseif n.field ~= nil then
    for i, f in ipairs(ev.f) do
      if f.name == n.field then c = { N_FLD, i }; break end
    end
    if not c then c = { N_ERR, "no field " .. n.field } end
  elseif n.error ~= nil then
    c = { N_ERR, n.error }
  elseif n.op ~= nil then
    local op = n.op
    local o = compilelist(ev, n, memo, {})
    if op == "[]" then c = { N_IDX, o[1], o[2] }
    elseif op == "?:" then c = { N_TERN, o[1], o[2], o[3] }
    elseif op == "sizeof" then c = { N_SIZEOF, o[1] }
    elseif #o == 1 then c = { N_UN, op, o[1] }
    else c = { N_BIN, op, o[1], o[2] } end
  elseif n.cast ~= nil then
    local a = compilenode(ev, n[1], memo)
    local ct = n.cast
    if ct == "pointer" then
      local es, eg = inttype(n.to)
      c = { N_CAST, a, true, TW_LONG_SIZE, false, es, eg, "" }
    elseif ct == "void" or ct == "bool" then
      c = { N_CAST, a, false, 0, false, 0, false, ct }
    elseif ct == "unknown" then
      c = { N_CAST, a, false, -1, false, 0, false, "" }
    else
      local size, signed = inttype(ct)
      c = { N_CAST, a, false, size, signed, 0, false, "" }
    end
  elseif n.call ~= nil then
    -- C's argument list: the arguments, then the { value, name } entries of a flag/symbol table
    c = compilelist(ev, n, memo, { N_CALL, n.call })
    if n.entries then compilelist(ev, n.entries, memo, c) end
  else
    c = compilelist(ev, n, memo, { N_BRACE })
  end
  memo[n] = c
  return c
end

local function star(v)
  if v == "*" then return -2 end
  return v or -1
end

local function compileprint(ev, src)
  local memo = {}
  local segs = {}
  for i, s in ipairs(src.format) do
    if type(s) == "string" then
      segs[i] = s
    else
      local flags = 0
      for ch in (s.flags or ""):gmatch(".") do flags = bit.bor(flags, FLAGBITS[ch] or 0) end
      segs[i] = { flags, star(s.width), star(s.precision), s.size or 4, s.conv, s.ext or "", s.text }
    end
  end
  local args = compilelist(ev, src.args, memo, {})
  -- c[8]: the field index when a conversion's argument is a plain field (render's fast path)
  local ai = 1
  for i = 1, #segs do
    local c = segs[i]
    if type(c) ~= "string" then
      if c[2] == -2 then ai = ai + 1 end
      if c[3] == -2 then ai = ai + 1 end
      local a = args[ai]
      if a and a[1] == N_FLD then c[8] = a[2] end
      ai = ai + 1
    end
  end
  return { segs, args }
end

---------------------------------------------------------------------------- fallback text
local function bytestext(d)
  local t = {}
  for i = 1, #d do t[#t + 1] = hex2(d:byte(i)) end
  return "ARRAY[" .. table.concat(t, ", ") .. "]"
end

-- name=value pairs (EventPrinter.fallbackText) in each field's fallback style:
-- string, pointer (hex), hex (a C long), signed, unsigned or bytes.
local function fallbacktext(ev, vals, le)
  local t = {}
  for i, f in ipairs(ev.f) do
    local d = vals[i]
    local s
    if d == nil then
      s = "?"
    else
      local st = f.fallback
      local ok, r = pcall(function()
        if st == "string" then
          local z = d:find("\0", 1, true)
          if z then return d:sub(1, z - 1) end
          return d
        elseif st == "bytes" then
          return bytestext(d)
        end
        if #d ~= f.size then fail("short") end
        local u = rdu(d, 0, f.size, le)
        if st == "pointer" or st == "hex" then return "0x" .. digits(u, 16) end
        if st == "signed" then
          local v = ext(u, f.size, true)
          if isneg(v) then return "-" .. tostring(U0 - v) end
          return tostring(v)
        end
        return tostring(u)
      end)
      s = ok and r or "?"
    end
    t[#t + 1] = f.name .. "=" .. s
  end
  return table.concat(t, " ")
end

local function syscalltext(ev, vals, le)
  local name = ev.n
  local enter = name:sub(1, 10) == "sys_enter_"
  local call = "sys_" .. name:sub(enter and 11 or 10)
  local function ul(i)
    local f = ev.f[i]
    local d = vals[i]
    if d == nil or #d ~= f.size then fail("short") end
    local v = rdu(d, 0, f.size, le)
    if f.signed and f.size < 8 and not (f.size == 4 and TW_LONG_SIZE == 4) then v = ext(v, f.size, true) end
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

-- The kernel's text after the time column: "name: <print fmt text>" (or the syscall text).
-- One evaluation context, reused by every frame (dissection is not re-entrant).
local CTX = {}
local function eventtext(ev, vals, le)
  local ctx = CTX
  ctx.ev = ev; ctx.v = vals; ctx.le = le
  if ev.sc then
    local ok, r = pcall(syscalltext, ev, vals, le)
    if ok then return r end
  end
  local body
  local pf = ev.pf
  if type(pf) == "function" then pf = compileprint(ev, pf()); ev.pf = pf end
  if pf then
    local ok, r = pcall(render, ctx, pf)
    if ok then body = r
    elseif type(r) ~= "table" then error(r, 0)
    end
  end
  if body == nil then body = fallbacktext(ev, vals, le) end
  return ev.n .. ": " .. body
end

---------------------------------------------------------------------------- event tables
-- The generator writes one EV { ... } per event (docs/dissector.md, "Generated file"):
--   EV {
--     id = 372, system = "sched", name = "sched_switch",
--     syscall = true,                 -- optional: Info is the kernel's syscall text
--     fields = {                      -- the event's own fields, in TLV order (TLV type = index)
--       {name = "prev_pid", kind = "int", size = 4, signed = true, elem_size = 4,
--        abbrev = "tracewire.sched.sched_switch.prev_pid", ftype = "i32", base = "hex",
--        fallback = "signed", values = {[0] = "..."}, bits = {{abbrev = "...", name = "S", mask = 0x1}}},
--     },
--     print = function() return {format = {...}, args = {...}} end,   -- absent: name=value pairs
--   }
-- kind: one of KINDS below; ftype: a key of FT, "str" or "bytes"; fallback: see fallbacktext.
-- EVENTS[id] = { s = system, n = name, full = "system:name", f = fields, pf = print function or,
-- after its first use, the compiled print table, sc = syscall text, pfs = { [i] = ProtoField },
-- bits = { [i] = { ProtoField, ... } } }
local EVENTS = {}
local FIELD_COUNT = 0

local KINDS = { int = true, pointer = true, char_array = true, array = true, dynamic_string = true,
  dynamic_array = true, dynamic_cpumask = true, opaque = true }
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
  local ev = { s = spec.system, n = spec.name, full = spec.system .. ":" .. spec.name, f = fields,
    pf = spec.print, sc = spec.syscall == true, pfs = {}, bits = {} }
  for i, f in ipairs(fields) do
    if not KINDS[f.kind] then error("tracewire: field " .. f.abbrev .. " has unknown kind " .. tostring(f.kind)) end
    f.signed = f.signed == true
    local pfield = newfield(f)
    ev.pfs[i] = pfield
    ALL_FIELDS[#ALL_FIELDS + 1] = pfield
    FIELD_COUNT = FIELD_COUNT + 1
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

-- ======================== EVENT TABLES BEGIN ========================
-- ======================== EVENT TABLES END ==========================

tw.fields = ALL_FIELDS
tw.experts = { EF.lost, EF.lost_unknown, EF.truncated, EF.unknown, EF.malformed, EF.other_formats, EF.internal }


---------------------------------------------------------------------------- dissection
-- Per-frame cost matters (a busy second of tracing is a million frames), so the frame is read
-- once as a Lua string and parsed with string.byte (no TvbRange per header field or TLV head),
-- and tree items are added only where someone can see them:
--   mode 2: the tree is visible (packet details, tshark -V / -T fields / -T json): every item;
--   mode 1: a tree without visible items (display filters, colouring rules): only the fields
--           that are referenced (TreeItem:referenced), and the items that carry them;
--   mode 0: no tree at all (tshark's summary without filters): no items, only the columns and
--           the expert infos.
-- The Info column and the expert infos are the same in every mode.

-- The generated format identity hash as 8 raw bytes, compared with the frame's bytes.
local GEN_HASH_RAW = nil
if TW_GEN_HASH then
  local t = {}
  for i = 1, 15, 2 do t[#t + 1] = string.char(tonumber(TW_GEN_HASH:sub(i, i + 1), 16)) end
  GEN_HASH_RAW = table.concat(t)
end

-- Big-endian reads at 0-based offset o of the Lua string s (the caller checked the length).
local function be16(s, o) local a, b = byte(s, o + 1, o + 2); return a * 256 + b end
local function be32(s, o)
  local a, b, c, d = byte(s, o + 1, o + 4)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- Header items after the first four: { ProtoField, offset, length, bit children }.
local HDR_TAIL = {
  { HF.cpu, 6, 2 }, { HF.event_id, 8, 2 },
  { HF.common_flags, 10, 1, { HF.cf_irqs_off, HF.cf_resched_lazy, HF.cf_resched, HF.cf_hardirq,
    HF.cf_softirq, HF.cf_preempt_resched, HF.cf_nmi, HF.cf_bh_off } },
  { HF.preempt_count, 11, 1, { HF.preempt_depth, HF.migrate_disable } },
  { HF.pid, 12, 4 }, { HF.time, 16, 8 }, { HF.seq, 24, 8 }, { HF.lost, 32, 4 },
  { HF.orig_len, 36, 2 }, { HF.tlv_len, 38, 2 }, { HF.format_hash, 40, 8 },
}
local HDR_MAGIC = { HF.magic, 0, 2 }
local HDR_VERSION = { HF.version, 2, 1 }
local HDR_FLAGS = { HF.flags, 3, 1, { HF.flags_le, HF.flags_trunc, HF.flags_lostunk, HF.flags_raw, HF.flags_res } }
local HDR_LEN = { HF.hdr_len, 4, 2 }
local TLV_GROUP = { HF.tlv, HF.tlv_type, HF.tlv_length, HF.tlv_value }

-- Is any of the ProtoFields in list referenced by tree (mode 1)?
local function anyref(tree, list)
  for k = 1, #list do if tree:referenced(list[k]) then return true end end
  return false
end

-- Adds one header item (and its bits, all on the item's one range) when mode wants it.
local function hdritem(tree, mode, tvb, e)
  local pf, bits = e[1], e[4]
  if mode == 1 and not tree:referenced(pf) and not (bits and anyref(tree, bits)) then return nil end
  local r = tvb(e[2], e[3])
  local item = tree:add(pf, r)
  if bits then
    for k = 1, #bits do
      local b = bits[k]
      if mode == 2 or tree:referenced(b) then item:add(b, r) end
    end
  end
  return item
end

-- Whether add_field shows TLV value d as field i of ev (else the TLV is shown raw).
local function fieldfits(f, d)
  local ft = f.ftype
  if ft == "str" then return true end
  if ft == "bytes" then
    local kind, size = f.kind, f.size
    return kind ~= "array" and kind ~= "opaque" or size == 0 or #d == size
  end
  return #d == f.size
end

local function add_field(tree, mode, ev, i, range, le, d)
  local f = ev.f[i]
  local pfield = ev.pfs[i]
  local ft = f.ftype
  if ft == "str" then
    local z = find(d, "\0", 1, true)
    local s = z and sub(d, 1, z - 1) or d
    return tree:add(pfield, range, s)
  elseif ft == "bytes" then
    return tree:add(pfield, range)
  end
  local item
  if le then item = tree:add_le(pfield, range) else item = tree:add(pfield, range) end
  local bits = ev.bits[i]
  if bits then
    for k = 1, #bits do
      local bf = bits[k]
      if mode == 2 or tree:referenced(bf) then
        if le then item:add_le(bf, range) else item:add(bf, range) end
      end
    end
  end
  return item
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
-- Results per frame number in one ByteArray, AN_REC bytes per frame (zero: no pair): 4 bytes (big-
-- endian) the start frame on an end frame, or 2^31 + the end frame on a start frame; then 7 bytes
-- latency (ns) on an end frame. Not in Lua tables: the collector would walk a table of one entry
-- per frame on every cycle (measured: half the decode speed of a small plugin at 100k frames); a
-- userdata is one object to it.
-- Times are ns since the first analysed frame (exact below 2^53 ns, 104 days).
local AN_LAST, AN_H0, AN_L0
local AN_SPACES, AN_HEAD, AN_TAIL, AN_COUNT, AN_NSLOTS, AN_NFREE
local SF, ST, SID, SNM, SSP, SKEY, SPREV, SNEXT, SFREE
local ANB, ANB_FRAMES
local AN_REC = 11
local AN_MAXFRAMES = 150000000  -- ByteArray sizes are C ints
local BA_SET, BA_GET
do
  local x = ByteArray.new()
  BA_SET, BA_GET = x.set_index, x.get_index
end
local function anreset()
  AN_LAST, AN_H0, AN_L0 = 0, nil, nil
  AN_SPACES = { wake = {}, raw = {}, sys = {}, irq = {}, softirq = {} }
  AN_HEAD, AN_TAIL, AN_COUNT, AN_NSLOTS, AN_NFREE = 0, 0, 0, 0, 0
  SF, ST, SID, SNM, SSP, SKEY, SPREV, SNEXT, SFREE = {}, {}, {}, {}, {}, {}, {}, {}, {}
  ANB, ANB_FRAMES = ByteArray.new(), 0
end
anreset()

-- ev's analysis role: { role, field index, space, kind, name or false, size, signed } or false.
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
  return { spec[1], idx[2], spec.space, spec.kind, name, f.size, f.signed }
end

local function le32(s, o)
  local a, b, c, d = byte(s, o + 1, o + 4)
  return ((d * 256 + c) * 256 + b) * 256 + a
end

-- A field's integer as a Lua number (exact below 2^53), as the Java record reads it: a missing
-- TLV is 0, a short one is zero-padded at its end; nil when the TLV is longer than the field.
local function anint(d, size, signed, le)
  if d == nil then return 0 end
  local n = #d
  if n > size then return nil end
  if n < size then d = d .. string.rep("\0", size - n) end
  if size == 8 then
    local lo, hi
    if le then lo, hi = le32(d, 0), le32(d, 4) else hi, lo = be32(d, 0), be32(d, 4) end
    if signed and hi >= 2147483648 then hi = hi - 4294967296 end
    return hi * 4294967296 + lo
  end
  local v = 0
  if size == 4 then
    if le then v = le32(d, 0) else v = be32(d, 0) end
  elseif le then
    for i = size, 1, -1 do v = v * 256 + byte(d, i) end
  else
    for i = 1, size do v = v * 256 + byte(d, i) end
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

-- Writes v (0 <= v < 256^n) as n big-endian bytes at byte offset o of ANB.
local function anputn(o, v, n)
  for k = n - 1, 0, -1 do
    local q = math.floor(v / 256)
    BA_SET(ANB, o + k, v - q * 256)
    v = q
  end
end

-- Reads n big-endian bytes at byte offset o of ANB.
local function angetn(o, n)
  local v = 0
  for k = 0, n - 1 do v = v * 256 + BA_GET(ANB, o + k) end
  return v
end

local function anpair(i, number, t)
  local ns = t - ST[i]
  if ns < 0 or number > AN_MAXFRAMES then return end
  if number > ANB_FRAMES then
    local f = ANB_FRAMES * 2
    if f < 65536 then f = 65536 end
    while f < number do f = f * 2 end
    if f > AN_MAXFRAMES then f = AN_MAXFRAMES end
    ANB:set_size(f * AN_REC)
    ANB_FRAMES = f
  end
  local start = SF[i]
  local o = (number - 1) * AN_REC
  anputn(o, start, 4)
  anputn(o + 4, ns, 7)
  anputn((start - 1) * AN_REC, 2147483648 + number, 4)
end

-- Feeds frame number (first pass, in frame order) of event ev: s the frame, vals its TLV values.
local function analyse(ev, vals, le, s, number)
  local r = ev.an
  if r == nil then r = anrole(ev); ev.an = r end
  if not r then return end
  local v = anint(vals[r[2]], r[6], r[7], le)
  if v == nil then return end
  local role, space = r[1], AN_SPACES[r[3]]
  local hi, lo = be32(s, 16), be32(s, 20)
  if AN_H0 == nil then AN_H0, AN_L0 = hi, lo end
  local t = (hi - AN_H0) * 4294967296 + (lo - AN_L0)
  if role == 1 then
    if space[v] == nil then anstart(space, v, number, t, 0, false) end
  elseif role == 2 then
    local i = anremove(space, v)
    if i then anpair(i, number, t) end
  else
    local pid = be32(s, 12)
    if pid >= 2147483648 then pid = pid - 4294967296 end
    if role == 3 then
      anremove(space, pid)
      anstart(space, pid, number, t, v, r[5])
    elseif role == 4 then
      local i = anremove(space, pid)
      if i and SID[i] == v and SNM[i] == r[5] then anpair(i, number, t) end
    else
      -- per CPU and irq/vec: cpu * 2^33 + v is one number per pair (|v| < 2^32)
      local key = (byte(s, 7) * 256 + byte(s, 8)) * 8589934592 + v
      if role == 5 then
        anremove(space, key)
        anstart(space, key, number, t, v, false)
      else
        local i = anremove(space, key)
        if i then anpair(i, number, t) end
      end
    end
  end
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
local function antree(tree, mode, tvb, number, ev)
  if number > ANB_FRAMES then return end
  local o = (number - 1) * AN_REC
  local x = angetn(o, 4)
  if x == 0 then return end
  if mode == 1 and not anyref(tree, AF_LIST) then return end
  local kind = ev and ev.an and ev.an[4]
  if not kind then return end
  local r = tvb(0, 0)
  local t = tree:add(AF.analysis, r)
  t:set_generated()
  if x < 2147483648 then
    local ns, st = angetn(o + 4, 7), x
    t:set_text("Latency analysis: " .. kind .. ", " .. nstext(ns) .. " since frame " .. st)
    t:add(AF.kind, r, kind):set_generated()
    t:add(AF.latency, r, nstime(ns)):set_generated()
    t:add(AF.latency_ns, r, UInt64.new(ns % 4294967296, math.floor(ns / 4294967296))):set_generated()
    t:add(AF.start_frame, r, st):set_generated()
  else
    local en = x - 2147483648
    t:set_text("Latency analysis: start of a " .. kind .. " pair, " .. nstext(angetn((en - 1) * AN_REC + 4, 7))
      .. " until frame " .. en)
    t:add(AF.end_frame, r, en):set_generated()
  end
end

function tw.init()
  anreset()
end

-- Per-frame scratch tables (dissection is not re-entrant), cleared at the start of the TLV walk
-- up to the largest TLV type the previous frame used.
local VALS, TOFF, TLEN = {}, {}, {}
local LAST_MAXTYPE = 0

local function dissect(tvb, pinfo, root)
  local len = tvb:len()
  pinfo.cols.protocol = "TRACEWIRE"
  local mode = 0
  if root.visible then mode = 2 elseif root.text ~= nil then mode = 1 end
  -- tree: the protocol item (modes 1, 2) or, without a tree, the root (for expert infos only)
  local tree = root
  if mode > 0 then tree = root:add(tw, tvb()) end
  if len < 6 then
    tree:add_proto_expert_info(EF.malformed, "Frame ends before the header length field (frame offset 20)")
    pinfo.cols.info = "tracewire: malformed (short header)"
    return len
  end
  local s = tvb:raw(0, len)
  if mode > 0 then hdritem(tree, mode, tvb, HDR_MAGIC) end
  if be16(s, 0) ~= 0x5457 then
    tree:add_proto_expert_info(EF.malformed, "Bad magic (frame offset 14)")
    pinfo.cols.info = "tracewire: malformed (bad magic)"
    return len
  end
  local version = byte(s, 3)
  local flags = byte(s, 4)
  local hlen = be16(s, 4)
  if mode > 0 then
    hdritem(tree, mode, tvb, HDR_VERSION); hdritem(tree, mode, tvb, HDR_FLAGS); hdritem(tree, mode, tvb, HDR_LEN)
  end
  if version == 0 then
    tree:add_proto_expert_info(EF.malformed, "Version 0 is invalid (frame offset 16)")
    pinfo.cols.info = "tracewire: malformed (version 0)"
    return len
  end
  if hlen < 48 or hlen > len then
    tree:add_proto_expert_info(EF.malformed, "Bad header length " .. hlen .. " (frame offset 18)")
    pinfo.cols.info = "tracewire: malformed (header length)"
    return len
  end
  local event_id = be16(s, 8)
  local lost = be32(s, 32)
  local orig = be16(s, 36)
  local tlvlen = be16(s, 38)
  local lostitem, hashitem = tree, tree
  if mode > 0 then
    for k = 1, #HDR_TAIL do
      local e = HDR_TAIL[k]
      local item = hdritem(tree, mode, tvb, e)
      if item then
        if e[1] == HF.lost then lostitem = item elseif e[1] == HF.format_hash then hashitem = item end
      end
    end
  end
  if bit.band(flags, 0x04) ~= 0 then
    lostitem:add_proto_expert_info(EF.lost_unknown, "Events were lost before this frame: unknown (>= 1)")
  elseif lost > 0 then
    lostitem:add_proto_expert_info(EF.lost, lost .. " events lost before this frame on this CPU")
  end
  if GEN_HASH_RAW and sub(s, 41, 48) ~= GEN_HASH_RAW and tw.prefs.check_hash then
    local hash = string.format("%02x%02x%02x%02x%02x%02x%02x%02x", byte(s, 41, 48))
    hashitem:add_proto_expert_info(EF.other_formats, "Dissector generated for other formats (" .. TW_GEN_HASH
      .. "); this frame's formats are " .. hash .. ": field names and types may be wrong")
  end
  local le = bit.band(flags, 0x01) ~= 0
  local area_end = hlen + tlvlen
  local malformed = nil
  if area_end > len then
    malformed = "TLVs (" .. tlvlen .. " bytes) run past the frame end (frame offset 52)"
    area_end = len
  end
  -- walk the TLVs
  local vals, toff, tlen = VALS, TOFF, TLEN
  for i = 0, LAST_MAXTYPE do vals[i] = nil; toff[i] = nil; tlen[i] = nil end
  LAST_MAXTYPE = 0
  local name = nil
  local off = hlen
  local maxtype = -1
  while off < area_end do
    if off + 4 > area_end then
      malformed = "TLV head runs past the TLV area end (frame offset " .. (off + 14) .. ")"
      break
    end
    local a, b, c, d4 = byte(s, off + 1, off + 4)
    local ttype = a * 256 + b
    local tl = c * 256 + d4
    if off + 4 + tl > area_end then
      malformed = "TLV value runs past the TLV area end (frame offset " .. (off + 14) .. ")"
      break
    end
    local d = tl > 0 and sub(s, off + 5, off + 4 + tl) or ""
    if ttype == 0 then
      name = d
    elseif vals[ttype] == nil then
      vals[ttype] = d
      toff[ttype] = off
      tlen[ttype] = tl
    end
    if ttype > maxtype then maxtype = ttype; LAST_MAXTYPE = ttype end
    off = off + 4 + tl
  end
  local ev = EVENTS[event_id]
  if ev and name ~= ev.full then ev = nil end
  -- latency analysis: every frame of the first pass, in order, with or without a tree
  local number = pinfo.number
  if number > AN_LAST then
    AN_LAST = number
    if ev and not malformed then analyse(ev, vals, le, s, number) end
  end
  if mode > 0 then
    if name and (mode == 2 or tree:referenced(HF.event)) then tree:add(HF.event, tvb(hlen + 4, #name), name) end
    local rawwanted = nil
    for i = 1, maxtype do
      local o = toff[i]
      if o then
        local tl = tlen[i]
        local f = ev and ev.f[i]
        local shown = false
        if f and fieldfits(f, vals[i]) then
          shown = true
          local bits = ev.bits[i]
          if mode == 2 or tree:referenced(ev.pfs[i]) or (bits and anyref(tree, bits)) then
            add_field(tree, mode, ev, i, tl > 0 and tvb(o + 4, tl) or tvb(o, 4), le, vals[i])
          end
        end
        if not shown then
          if rawwanted == nil then rawwanted = mode == 2 or anyref(tree, TLV_GROUP) end
          if rawwanted then
            local t = tree:add(HF.tlv, tvb(o, 4 + tl))
            t:set_text((f and f.name or ("TLV " .. i)) .. " (" .. tl .. " bytes, raw)")
            t:add(HF.tlv_type, tvb(o, 2))
            t:add(HF.tlv_length, tvb(o + 2, 2))
            if tl > 0 then t:add(HF.tlv_value, tvb(o + 4, tl)) end
          end
        end
      end
    end
  end
  local bodytext
  if ev then
    local ok, r = pcall(eventtext, ev, vals, le)
    if ok then bodytext = r
    else
      tree:add_proto_expert_info(EF.internal, "Info text failed: " .. tostring(r))
      bodytext = ev.n .. ": " .. fallbacktext(ev, vals, le)
    end
  else
    local nm = name or ("event " .. event_id)
    tree:add_proto_expert_info(EF.unknown, "Unknown event " .. nm .. " (id " .. event_id
      .. "): not in this dissector's tables; fields shown as raw TLVs")
    local t = {}
    for i = 1, maxtype do
      if vals[i] then t[#t + 1] = "tlv" .. i .. "=" .. bytestext(vals[i]) end
    end
    local short = nm:match(":(.*)$") or nm
    bodytext = short .. ": " .. table.concat(t, " ")
  end
  if bit.band(flags, 0x02) ~= 0 then
    tree:add_proto_expert_info(EF.truncated, "Truncated event: " .. tlvlen .. " of " .. orig .. " TLV bytes captured")
  end
  if malformed then
    tree:add_proto_expert_info(EF.malformed, malformed)
  end
  if mode == 2 or (mode == 1 and tree:referenced(HF.text)) then
    tree:add(HF.text, tvb(0, 0), bodytext):set_generated()
  end
  if mode > 0 then antree(tree, mode, tvb, number, ev) end
  pinfo.cols.info = bodytext
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
