-- 55-fallback-text.lua: the Info text of an event the print fmt does not describe: name=value
-- pairs and the kernel's syscall text.

-- the names later files use; the rest of this file is private to the block below
local bytestext, fieldtext, fallbacktext, eventtext
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

-- The kernel's text after the time column: "name: <print fmt text>" (or the syscall text) of the
-- frame in ctx (EventPrinter's rules: an evaluation failure gives name=value pairs).
function eventtext(ctx)
  local ev = ctx.ev
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
