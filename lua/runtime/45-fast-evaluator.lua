-- 45-fast-evaluator.lua: the fast evaluator (closures on Lua numbers, compiled once per print fmt
-- argument; it declines to the general evaluator whenever a number cannot be exact).

-- Most print fmt arguments are integer expressions on a record's fields whose values are small:
-- these are compiled (once per event, from the evaluator's nodes) into closures that compute with
-- Lua numbers, no UInt64 and no value tables: per frame they allocate nothing. C's types are
-- static, so each closure has one: "i" (an integer of size bytes, signed or not) or "t" (text).
-- A closure returns nil when it cannot give the exact C result with numbers (a 64-bit value
-- beyond 2^53, a division, a field outside the record, ...): the conversion is then evaluated by
-- the general evaluator above, so results are the same either way.
local fastc, fastwrap
do
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

  -- Integer promotion and C's usual arithmetic conversions (TW_PARAMS.c_arith, see 20-values.lua).
  local function promoted(size, signed)
    local s, g = cpromoted(size, signed)
    return s, g
  end

  local function common(s1, g1, s2, g2)
    s1, g1 = promoted(s1, g1)
    s2, g2 = promoted(s2, g2)
    return ccommon(s1, g1, s2, g2)
  end
  local TS, TG = CA.truth.size, CA.truth.signed

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
      end, "i", TS, TG
    elseif op == "||" then
      return function(ctx)
        local a = fa(ctx)
        if a == nil then return nil end
        if a ~= 0 then return 1 end
        local b = fb(ctx)
        if b == nil then return nil end
        return b ~= 0 and 1 or 0
      end, "i", TS, TG
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
      end, "i", TS, TG
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
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return a == 0 and 1 or 0 end, "i", TS, TG
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
        return function(ctx) local a = fa(ctx); if a == nil then return nil end; return a ~= 0 and 1 or 0 end, "i", CA.bool.size, CA.bool.signed
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
end

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
