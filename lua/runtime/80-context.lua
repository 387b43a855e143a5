-- 80-context.lua: the in-band context (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST) per scope:
-- reassembly, history, caps (applymsg, fmtev, dissectcontext).

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
do
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
      if ty == 6 and l >= 5 then
        -- the GNU build id of the file process tgid maps under a name (its items 4's [file]), kept as
        -- lowercase hex under "b<tgid>:<file>" (read by stacktrace)
        local n = byte(msg, o + 5)
        if n == 0 or 5 + n > l then return end
        if st.nsyms >= CAP.SYMBOLS or not charge(st, l + 2 * n + 48) then capped = true; return end
        local h = {}
        for i = o + 6, o + 5 + n do h[#h + 1] = hex2(byte(msg, i)) end
        st.syms["b" .. be32(msg, o) .. ":" .. sub(msg, o + 6 + n, o + l)] = table.concat(h)
        st.nsyms = st.nsyms + 1
        return
      end
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
end

function tw.init()
  anreset()
  streset()
  resetcontext()
end
