-- Wireshark's UInt64, Int64 and bit for a plain Lua 5.2 or 5.4 (CArithAgreementTest runs the
-- runtime's evaluators outside Wireshark). Pure arithmetic on two 32-bit halves held in Lua
-- numbers: scaling by powers of two and % 2^32 are exact on integers below 2^53, multiplication
-- goes through 16-bit limbs, division is binary long division. Inside Wireshark (UInt64 defined)
-- this chunk does nothing.
if UInt64 == nil then
  local P16, P32 = 65536, 4294967296
  local floor = math.floor

  -- bitwise operation f(x, y) on two 32-bit numbers, bit by bit
  local function bitop(x, y, f)
    local r, p = 0, 1
    for _ = 1, 32 do
      local a, b = x % 2, y % 2
      if f(a, b) then r = r + p end
      x, y, p = (x - a) / 2, (y - b) / 2, p * 2
    end
    return r
  end
  local function fand(a, b) return a == 1 and b == 1 end
  local function forr(a, b) return a == 1 or b == 1 end
  local function fxor(a, b) return a ~= b end
  local function u32(x) return floor(x) % P32 end

  bit = {
    band = function(x, y) return bitop(u32(x), u32(y), fand) end,
    bor = function(x, y) return bitop(u32(x), u32(y), forr) end,
    bxor = function(x, y) return bitop(u32(x), u32(y), fxor) end,
    bnot = function(x) return P32 - 1 - u32(x) end,
    lshift = function(x, n) return (u32(x) * 2 ^ n) % P32 end,
    rshift = function(x, n) return floor(u32(x) / 2 ^ n) end,
  }

  local U, I = {}, {}
  U.__index, I.__index = U, I
  local function mk(mt, lo, hi) return setmetatable({ lo = lo, hi = hi }, mt) end
  local function new(lo, hi) return mk(U, u32(lo or 0), u32(hi or 0)) end
  local function parts(x) return x.lo, x.hi end

  local function add(a, b)
    local lo = a.lo + b.lo
    local carry = lo >= P32 and 1 or 0
    return lo % P32, (a.hi + b.hi + carry) % P32
  end
  local function neg(a)
    local lo, hi = P32 - 1 - a.lo, P32 - 1 - a.hi
    return add({ lo = lo, hi = hi }, { lo = 1, hi = 0 })
  end
  local function mul(a, b)
    local x = { a.lo % P16, floor(a.lo / P16), a.hi % P16, floor(a.hi / P16) }
    local y = { b.lo % P16, floor(b.lo / P16), b.hi % P16, floor(b.hi / P16) }
    local r = { 0, 0, 0, 0 }
    for i = 1, 4 do
      for j = 1, 5 - i do r[i + j - 1] = r[i + j - 1] + x[i] * y[j] end
    end
    local carry = 0
    for k = 1, 4 do
      local v = r[k] + carry
      r[k] = v % P16
      carry = floor(v / P16)
    end
    return r[1] + r[2] * P16, r[3] + r[4] * P16
  end
  local function lt(a, b) return a.hi < b.hi or (a.hi == b.hi and a.lo < b.lo) end
  -- (each half is cut below 2^32 before it is scaled, so every intermediate stays exact)
  local function shl(a, n)
    if n >= 64 then return 0, 0 end
    if n >= 32 then return 0, (a.lo % 2 ^ (64 - n)) * 2 ^ (n - 32) end
    return (a.lo % 2 ^ (32 - n)) * 2 ^ n, (a.hi % 2 ^ (32 - n)) * 2 ^ n + floor(a.lo / 2 ^ (32 - n))
  end
  local function shr(a, n)
    if n >= 64 then return 0, 0 end
    if n >= 32 then return floor(a.hi / 2 ^ (n - 32)), 0 end
    return floor(a.lo / 2 ^ n) + (a.hi % 2 ^ n) * 2 ^ (32 - n), floor(a.hi / 2 ^ n)
  end
  -- unsigned a / b and a % b (b not 0), binary long division
  local function divmod(a, b)
    local q = { lo = 0, hi = 0 }
    local r = { lo = 0, hi = 0 }
    local nlo, nhi = neg(b)
    local nb = { lo = nlo, hi = nhi }
    for i = 63, 0, -1 do
      -- r = 2r + the next bit of a; a top bit shifted out means r exceeds b (taken mod 2^64)
      local over = r.hi >= 2147483648
      local lo, hi = shl(r, 1)
      local abit
      if i >= 32 then abit = floor(a.hi / 2 ^ (i - 32)) % 2 else abit = floor(a.lo / 2 ^ i) % 2 end
      r = { lo = lo + abit, hi = hi }
      if over or not lt(r, b) then
        local rlo, rhi = add(r, nb)
        r = { lo = rlo, hi = rhi }
        if i >= 32 then q.hi = q.hi + 2 ^ (i - 32) else q.lo = q.lo + 2 ^ i end
      end
    end
    return q, r
  end
  local function isneg(a) return a.hi >= 2147483648 end

  local function tostr(a)
    if a.hi == 0 and a.lo == 0 then return "0" end
    local t, ten = {}, { lo = 10, hi = 0 }
    while a.hi ~= 0 or a.lo ~= 0 do
      local q, r = divmod(a, ten)
      t[#t + 1] = string.format("%d", r.lo)
      a = q
    end
    return string.reverse(table.concat(t))
  end

  U.__add = function(a, b) return mk(U, add(a, b)) end
  U.__sub = function(a, b) local nlo, nhi = neg(b); return mk(U, add(a, { lo = nlo, hi = nhi })) end
  U.__mul = function(a, b) return mk(U, mul(a, b)) end
  U.__div = function(a, b) local q = divmod(a, b); return mk(U, q.lo, q.hi) end
  U.__mod = function(a, b) local _, r = divmod(a, b); return mk(U, r.lo, r.hi) end
  U.__eq = function(a, b) return a.lo == b.lo and a.hi == b.hi end
  U.__lt = function(a, b) return lt(a, b) end
  U.__le = function(a, b) return not lt(b, a) end
  U.__tostring = tostr
  function U.band(a, b) return mk(U, bit.band(a.lo, b.lo), bit.band(a.hi, b.hi)) end
  function U.bor(a, b) return mk(U, bit.bor(a.lo, b.lo), bit.bor(a.hi, b.hi)) end
  function U.bxor(a, b) return mk(U, bit.bxor(a.lo, b.lo), bit.bxor(a.hi, b.hi)) end
  function U.bnot(a) return mk(U, P32 - 1 - a.lo, P32 - 1 - a.hi) end
  function U.lshift(a, n) return mk(U, shl(a, n)) end
  function U.rshift(a, n) return mk(U, shr(a, n)) end
  function U.lower(a) return a.lo end
  function U.higher(a) return a.hi end
  function U.tonumber(a) return a.hi * P32 + a.lo end
  function U.tohex(a) return string.format("%08x%08x", a.hi, a.lo) end
  U.new = new

  -- Int64: the same bits, signed division and remainder (C's: truncated toward zero)
  local function sdiv(a, b, want)
    local na, nb = isneg(a), isneg(b)
    local ua = a
    if na then ua = {}; ua.lo, ua.hi = neg(a) end
    local ub = b
    if nb then ub = {}; ub.lo, ub.hi = neg(b) end
    local q, r = divmod(ua, ub)
    local x = want == "q" and q or r
    local flip = (want == "q" and na ~= nb) or (want == "r" and na)
    if flip then local lo, hi = neg(x); return mk(I, lo, hi) end
    return mk(I, x.lo, x.hi)
  end
  I.__div = function(a, b) return sdiv(a, b, "q") end
  I.__mod = function(a, b) return sdiv(a, b, "r") end
  I.__eq = U.__eq
  function I.lower(a) return a.lo end
  function I.higher(a) return a.hi end
  function I.tonumber(a)
    if isneg(a) then local lo, hi = neg(a); return -(hi * P32 + lo) end
    return a.hi * P32 + a.lo
  end
  UInt64 = U
  Int64 = { new = function(lo, hi) return mk(I, u32(lo or 0), u32(hi or 0)) end }
end
