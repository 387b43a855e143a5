-- 90-dissector.lua: registration of the fields and experts, the dissector of one frame, and its
-- EtherType and pcapng link type.

tw.fields = ALL_FIELDS
tw.experts = { EF.lost, EF.truncated, EF.unknown, EF.no_context, EF.malformed, EF.version, EF.reserved, EF.cap,
  EF.changed, EF.fragment, EF.internal }

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
-- first (each as the kernel prints it), a stack record's frames, the links between an event and
-- its stack records, the latency analysis, then a "Header" subtree with the
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
  if ev then
    local _, sub = stacktrace(ctx, tree, mode, tvb)
    sttree(tree, sub, mode, tvb, number, ev)
  end
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
    if k == 5 then stlost(number, key, cpu) end
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
  LONG = st and st.long or TW_PARAMS.long_size
  local ctx = CTX
  ctx.ev = ev or nil; ctx.s = s; ctx.b = 16; ctx.pl = pl; ctx.le = le; ctx.pd = nil; ctx.cx = st; ctx.rendered = nil
  -- latency analysis: every frame of the first pass, in order, with or without a tree
  analyse(ctx, number, cpu, pid)
  stlink(ev, number, key, cpu, pid)
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
      .. "tables for " .. ev.full .. " (generated from " .. TW_PARAMS.source .. ")")
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
