-- 20-values.lua: 64-bit helpers, the evaluator's values, and the kernel's vsprintf (conversions,
-- flags, width, precision; %p extensions).

local U = UInt64
-- The traced kernel's sizeof(long) for the frame being dissected: its scope's CAPTURE context, else
-- the generator's value (dissection is not re-entrant).
local LONG = TW_PARAMS.long_size
local U0 = U.new(0, 0)
local U1 = U.new(1, 0)
local SIGNBIT = U.new(0, 0x80000000)
local ONES = U.new(0xffffffff, 0xffffffff)
local MASKS = { [1] = U.new(0xff, 0), [2] = U.new(0xffff, 0), [4] = U.new(0xffffffff, 0) }

-- C's integer arithmetic rules (TW_PARAMS.c_arith, generated from core's CArith, the rules Java's
-- evaluator applies): conversion ranks, integer promotion, the usual arithmetic conversions, what
-- comparisons and casts to bool yield. Both evaluators use cpromoted and ccommon. The runtime
-- implements shift counts modulo the promoted width and truncating division only: it refuses
-- other rules when it loads.
local CA = TW_PARAMS.c_arith
local cpromoted, ccommon
do
  if CA.division ~= "truncate" or CA.shift_count_modulo_width ~= true then
    error("tracewire: TW_PARAMS.c_arith names C arithmetic this runtime does not implement")
  end
  local rank = {}
  for _, t in ipairs(CA.types) do rank[t.size] = 2 * t.rank end
  -- a size the table lacks ranks between the widths around it (CArith.rank)
  local function rankof(size)
    local r = rank[size]
    if r then return r end
    local below = 0
    for _, t in ipairs(CA.types) do
      if t.size < size and t.signed then below = t.rank end
    end
    return 2 * below + 1
  end
  local prom = CA.promoted
  local promrank = rankof(prom.size)

  -- Integer promotion of the type (size bytes, signed): the type after it, and true when it changed.
  function cpromoted(size, signed)
    if rankof(size) < promrank then return prom.size, prom.signed, true end
    return size, signed, false
  end

  -- The usual arithmetic conversions of two promoted types: the common type's size and signedness.
  function ccommon(s1, g1, s2, g2)
    local r1, r2 = rankof(s1), rankof(s2)
    if r1 == r2 then
      if CA.equal_rank_unsigned then return s1, g1 and g2 end
      return s1, g1 or g2
    end
    if r1 > r2 then return s1, g1 end
    return s2, g2
  end
end

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

-- Int: { k = "i", b = UInt64 bits (already extended), s = size, g = signed, p = pointer }
-- Mem: { k = "m", d = bytes (Lua string), o = 0-based offset, l = limit, es = element size, eg = signed }
-- Text: { k = "t", t = string }
local function int(b, size, signed) return { k = "i", b = ext(b, size, signed), s = size, g = signed } end
-- What a comparison, !, && or || yields (CA.truth: an int 1 or 0).
local function bool(v) return int(v and U1 or U0, CA.truth.size, CA.truth.signed) end
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
  local size, signed, changed = cpromoted(v.s, v.g)
  if changed then
    local c = v.c
    if c then
      local r = c.p
      if r == nil then r = int(v.b, size, signed); c.p = r end
      return r
    end
    return int(v.b, size, signed)
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
  local size, signed = ccommon(a.s, a.g, b.s, b.g)
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
do
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
end
