-- 55-fallback-text.lua: the Info text of an event the print fmt does not describe: name=value
-- pairs and the kernel's syscall text.

-- the names later files use; the rest of this file is private to the block below
local bytestext, fieldtext, fallbacktext, eventtext, stacktrace
do
function bytestext(d, o, l)
  local t = {}
  if l - o > 65536 then l = o + 65536 end
  for i = o + 1, l do t[#t + 1] = hex2(byte(d, i)) end
  return "ARRAY[" .. table.concat(t, ", ") .. "]"
end

-- Field i of the frame in ctx as name=value pairs print it (EventPrinter.fallbackText), in the
-- field's fallback style: string, pointer (hex), hex (a C long), signed, unsigned or bytes.
-- Fails when the field lies outside the record.
function fieldtext(ctx, i)
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

function fallbacktext(ctx)
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

-- The stack record in ctx: nil for any other event; else the kernel's text with its lines joined
-- ("<stack trace> => f1 => f2", the Info column), and given a tree (modes 1 and 2: when one of
-- SF_LIST is referenced in mode 1; anyref is defined further down) a "Stack trace" subtree with
-- each frame's function and address (a user frame's module and build id too), returned second (for the link to its event, sttree).
function stacktrace(ctx, tree, mode, tvb)
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
      -- an integer in Lua 5.4 too (lower() gives a float there), as applymsg's keys
      tgid = math.floor(rdu(ctx.s, ctx.b + f.offset, 4, ctx.le):lower())
    end
  end
  local t = { kernel and "<stack trace>" or "<user stack trace>" }
  local sub = nil
  if tree and stop > c.offset and (mode == 2 or tree:referenced(SF.stack) or tree:referenced(SF.func)
      or tree:referenced(SF.address) or tree:referenced(SF.module) or tree:referenced(SF.build_id)
      or tree:referenced(SF.event)) then
    sub = tree:add(SF.stack, tvb(ctx.b + c.offset, stop - c.offset))
  end
  local off = c.offset
  while off + es <= stop do
    local a = rdu(ctx.s, ctx.b + off, es, ctx.le)
    if (kernel and a == last) or (not kernel and a == U0) then break end
    local name, func, mod = nil, nil, nil
    if not kernel then
      local h = digits(a, 16)
      name = " <" .. string.rep("0", 16 - #h) .. h .. ">"
      local e = tgid and ctx.cx and ctx.cx.syms["u" .. tgid .. ":" .. hex16(a)]
      if e and not (a < e[2]) and a - e[2] < e[3] then
        -- resolved by the capture in its process: report's " NAME+0xOFF [FILE]" after the address
        func, mod = e[1], e[4]
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
      if mod then
        sub:add(SF.module, r, mod):set_generated()
        local bid = ctx.cx.syms["b" .. tgid .. ":" .. mod]
        if bid then sub:add(SF.build_id, r, bid):set_generated() end
      end
      sub:add(SF.address, r, a)
    end
    off = off + es
  end
  if sub then sub:append_text(" (" .. (#t - 1) .. (kernel and " kernel" or " user") .. " frames)") end
  return table.concat(t, " => "), sub
end

-- The kernel's text after the time column: "name: <print fmt text>" (or the syscall text) of the
-- frame in ctx (EventPrinter's rules: an evaluation failure gives name=value pairs).
function eventtext(ctx)
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
end
