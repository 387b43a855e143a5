-- 40-evaluator.lua: the general print fmt evaluator (C expressions on UInt64 values, the kernel's
-- helpers) and the Info text it renders.

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
do

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
    -- the promoted left operand's type; the count modulo its width (CA.shift_count_modulo_width)
    local pl = promote(l)
    local bits = pl.s * 8
    local c = promote(r).b:band(U.new(bits - 1, 0)):lower()
    local res
    if op == "<<" then res = pl.b:lshift(c)
    else
      res = pl.b:rshift(c)
      -- arithmetic on a signed type: the vacated bits copy the sign (Wireshark 4.0's
      -- UInt64:arshift shifts in zeros)
      if pl.g and c > 0 and isneg(pl.b) then res = res:bor(ONES:lshift(64 - c)) end
    end
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
      -- C truncates toward zero (CA.division): divide the magnitudes, then give the quotient the
      -- operands' combined sign and the remainder the dividend's; INT64_MIN / -1 wraps to itself.
      -- (Not through Int64: Wireshark 4.0's Int64:lower()/higher() are wrong for negative values.)
      local nx, ny = isneg(x), isneg(y)
      local ax, ay = x, y
      if nx then ax = U0 - x end
      if ny then ay = U0 - y end
      if op == "/" then
        res = ax / ay
        if nx ~= ny then res = U0 - res end
      else
        res = ax % ay
        if nx then res = U0 - res end
      end
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

-- The C type of an integer expression without evaluating it (C11 6.5.15: the arm a conditional
-- does not take may divide by zero, yet its type sets the result's): size, signed; nil when the
-- type does not follow from the expression's text (pointers, strings, helper calls, identifiers).
local stype
stype = function(ctx, n)
  local t = n[1]
  if t == N_LIT then
    local v = n[2]
    if v.k == "i" and not v.p then return v.s, v.g end
  elseif t == N_FLD then
    local f = ctx.ev.f[n[2]]
    local size = f and f.size
    if f and f.kind == "int" and (size == 1 or size == 2 or size == 4 or size == 8) then return size, f.signed end
  elseif t == N_CAST then
    if n[3] or n[8] == "void" then return nil end
    if n[8] == "bool" then return CA.bool.size, CA.bool.signed end
    if n[4] > 0 then return n[4], n[5] end
  elseif t == N_SIZEOF then
    return LONG, false
  elseif t == N_UN then
    local op = n[2]
    if op == "!" then return CA.truth.size, CA.truth.signed end
    if op == "-" or op == "~" or op == "+" then
      local s1, g1 = stype(ctx, n[3])
      if s1 then return cpromoted(s1, g1) end
    end
  elseif t == N_BIN then
    local op = n[2]
    if op == "&&" or op == "||" or op == "==" or op == "!=" or op == "<" or op == "<=" or op == ">" or op == ">="
    then return CA.truth.size, CA.truth.signed end
    local s1, g1 = stype(ctx, n[3])
    if not s1 then return nil end
    s1, g1 = cpromoted(s1, g1)
    if op == "<<" or op == ">>" then return s1, g1 end
    if op == "+" or op == "-" or op == "*" or op == "/" or op == "%" or op == "&" or op == "|" or op == "^" then
      local s2, g2 = stype(ctx, n[4])
      if not s2 then return nil end
      s2, g2 = cpromoted(s2, g2)
      return ccommon(s1, g1, s2, g2)
    end
  elseif t == N_TERN then
    local s1, g1 = stype(ctx, n[3])
    local s2, g2 = stype(ctx, n[4])
    if s1 and s2 then
      s1, g1 = cpromoted(s1, g1)
      s2, g2 = cpromoted(s2, g2)
      return ccommon(s1, g1, s2, g2)
    end
  end
  return nil
end

local function ternary(ctx, n)
  local c = truth(eval(ctx, n[2]))
  local chosen = eval(ctx, c and n[3] or n[4])
  if chosen.k == "i" and not chosen.p then
    -- both arms integers: their common type, the other arm's from its text, else from its value
    local arm = c and n[4] or n[3]
    local size, signed = stype(ctx, arm)
    local other
    if size then
      other = { k = "i", b = U0, s = size, g = signed }
    else
      local ok, v = pcall(eval, ctx, arm)
      if not ok then return chosen end
      other = v
    end
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
    if n[8] == "bool" then return int(v.b ~= U0 and U1 or U0, CA.bool.size, CA.bool.signed) end
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

-- The value of a __print_flags / __print_symbolic entry e ({ value, name }), truncated to a long
-- unless the table is a 64-bit one; nil when it does not evaluate to an integer.
local function entryvalue(ctx, e, u64)
  if e[1] ~= N_BRACE or #e ~= 3 then fail("entries must be { value, name }") end
  local ok, v = pcall(eval, ctx, e[2])
  if not ok or v.k ~= "i" then return nil end
  if u64 then return v.b end
  return ext(v.b, LONG, false)
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
    local mask = entryvalue(ctx, e, u64)
    if mask == nil then
      unknown = true
    elseif flags:band(mask) == mask then
      local s = entryname(ctx, e)
      flags = flags:band(mask:bnot())
      if not first and delim then t[#t + 1] = delim else first = false end
      t[#t + 1] = s
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
    local key = entryvalue(ctx, e, u64)
    if key == nil then
      unknown = true
    elseif key == val then
      local s = entryname(ctx, e)
      if s ~= "" then return text(s) end
      break
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
end
