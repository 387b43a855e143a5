-- 70-dissection-helpers.lua: tree items per mode (visible tree, referenced fields only, none), a
-- field's items and kernel text.

-- the names later files use; the rest of this file is private to the block below
local be16, be32, CF_BITS, PC_BITS, HDR_FIELDS, GENERIC_GROUP, EVENT_ITEMS, newpass, ref, anyref,
  hdrtree, bitsitem, typeditem, genericitem
do
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
function be16(s, o) local a, b = byte(s, o + 1, o + 2); return a * 256 + b end
function be32(s, o)
  local a, b, c, d = byte(s, o + 1, o + 4)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

local HDR_FLAG_BITS = { HF.flags_le, HF.flags_trunc, HF.flags_raw, HF.flags_res }
CF_BITS = { HF.cf_irqs_off, HF.cf_resched_lazy, HF.cf_resched, HF.cf_hardirq, HF.cf_softirq,
  HF.cf_preempt_resched, HF.cf_nmi, HF.cf_bh_off }
PC_BITS = { HF.preempt_depth, HF.migrate_disable }
HDR_FIELDS = { HF.version, HF.kind, HF.flags, HF.flags_le, HF.flags_trunc, HF.flags_raw, HF.flags_res, HF.cpu,
  HF.seq, HF.time, HF.time_ns }
GENERIC_GROUP = { HF.field, HF.field_name, HF.field_value, HF.field_text }
-- Every item eventtree may add besides an event's typed fields (allfields): in mode 1, a frame
-- for which none of these nor of its event's typed fields is referenced needs no items at all.
EVENT_ITEMS = { HF.event_id, HF.common_flags, HF.preempt_count, HF.pid, HF.comm, HF.tgid, HF.event,
  HF.payload, HF.text, HF.header }
for _, l in ipairs({ CF_BITS, PC_BITS, GENERIC_GROUP, AF_LIST, SF_LIST }) do
  for k = 1, #l do EVENT_ITEMS[#EVENT_ITEMS + 1] = l[k] end
end

-- Whether a ProtoField is referenced (mode 1: TreeItem:referenced, 0.2 us a call). The answers
-- are kept for one pass over the frames: the fields a filter references change only between
-- passes (a new display filter makes Wireshark dissect every frame again from the first), and a
-- pass is seen to begin when a frame number is not above the previous one (newpass).
local REF, REF_LAST = {}, 0
function newpass(number)
  if number <= REF_LAST then REF = {} end
  REF_LAST = number
end
function ref(tree, pf)
  local r = REF[pf]
  if r == nil then r = tree:referenced(pf); REF[pf] = r end
  return r
end

-- Is any of the ProtoFields in list referenced by tree (mode 1)? Kept per list for the pass.
function anyref(tree, list)
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
function hdrtree(tree, mode, tvb)
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
function bitsitem(tree, mode, tvb, o, pf, bits)
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
function typeditem(tree, mode, tvb, ctx, i)
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
function genericitem(tree, tvb, ctx, i)
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
end
