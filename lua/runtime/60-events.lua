-- 60-events.lua: events: EV (a generated table, typed ProtoFields) and descev (a description tree
-- from a FORMAT message, checked).

-- the names later files use; the rest of this file is private to the block below
local EVENTS, EV, descev, samelayout
do
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
EVENTS = {}
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

function EV(spec)
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
function descev(t, id, enums)
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
function samelayout(g, d)
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
end
