-- 50-print-tables.lua: print tables (docs/dissector.md, "Event description") checked and compiled
-- once per event (compileprint), and each field's kernel text from the Info text's pieces.

-- the names later files use; the rest of this file is private to the block below
local isint, gsub, match, compileprint
do
-- A print table (named keys: docs/dissector.md, "Event description") becomes the evaluator's
-- internal form once per event, when its first frame is dissected: { segments, args } of
-- positional nodes, field names resolved to field indexes, constants to values, flag characters to
-- bits. Subtrees the generator shares (locals of the print function) are compiled once.
-- The table comes from the generated plugin or from a capture's FORMAT message (untrusted): every
-- shape is checked here (bad() raises), so the evaluator only ever sees well-formed nodes.
local FLAGBITS = { ["-"] = LEFT, ["+"] = PLUS, [" "] = SPACE, ["#"] = SPECIAL, ["0"] = ZEROPAD }
local INTTYPES = { s8 = { 1, true }, s16 = { 2, true }, s32 = { 4, true }, s64 = { 8, true },
  u8 = { 1, false }, u16 = { 2, false }, u32 = { 4, false }, u64 = { 8, false } }
local CONVS = { d = true, i = true, u = true, o = true, x = true, X = true, c = true, s = true, p = true }
local UNARY = { ["-"] = true, ["+"] = true, ["!"] = true, ["~"] = true, ["*"] = true, ["&"] = true }
local BINARY = { ["+"] = true, ["-"] = true, ["*"] = true, ["/"] = true, ["%"] = true, ["&"] = true, ["|"] = true,
  ["^"] = true, ["<<"] = true, [">>"] = true, ["=="] = true, ["!="] = true, ["<"] = true, ["<="] = true, [">"] = true,
  [">="] = true, ["&&"] = true, ["||"] = true, [","] = true }

local PLAINFMT = { d = "%d", i = "%d", u = "%d", o = "%o", x = "%x", X = "%X" }

local function bad(msg) error({ tw = "bad print table: " .. msg }, 0) end

-- "s32", "u64", ...: size in bytes and signedness.
local function inttype(t)
  local r = INTTYPES[t]
  if r == nil then bad("integer type " .. tostring(t)) end
  return r[1], r[2]
end

function isint(v) return type(v) == "number" and v == math.floor(v) and v > -2 ^ 53 and v < 2 ^ 53 end

-- A constant: v is a number or a "0x" followed by 1 to 16 hex digits.
local function constant(v, t)
  local size, signed = inttype(t)
  local b
  if type(v) == "string" then
    if not v:match("^0x%x%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?%x?$") then bad("constant " .. v) end
    b = U.fromhex(v:sub(3))
  elseif not isint(v) then bad("constant " .. tostring(v))
  elseif v >= 0 then b = U.new(v % 4294967296, math.floor(v / 4294967296))
  else
    local m = -v
    b = U0 - U.new(m % 4294967296, math.floor(m / 4294967296))
  end
  local x = int(b, size, signed)
  x.c = {}   -- a constant: its promoted and converted forms are kept here (see convert)
  return { N_LIT, x }
end

local compilenode

local function compilelist(ev, list, memo, into, depth)
  if type(list) ~= "table" then bad("list expected") end
  for i = 1, #list do into[#into + 1] = compilenode(ev, list[i], memo, depth) end
  return into
end

compilenode = function(ev, n, memo, depth)
  local t = type(n)
  if t == "number" then return constant(n, "s32") end
  if t == "string" then return { N_STR, n, text(n) } end
  if t ~= "table" then bad("node of type " .. t) end
  if depth > MAX_DEPTH then bad("nests deeper than " .. MAX_DEPTH) end
  local c = memo[n]
  if c then return c end
  local d = depth + 1
  if n.int ~= nil then
    c = constant(n.int, n.type)
  elseif n.field ~= nil then
    for i, f in ipairs(ev.f) do
      if f.name == n.field then c = { N_FLD, i }; break end
    end
    if not c then c = { N_ERR, "no field " .. tostring(n.field) } end
  elseif n.ident ~= nil then
    if type(n.ident) ~= "string" then bad("ident") end
    c = { N_IDENT, n.ident }
  elseif n.error ~= nil then
    c = { N_ERR, tostring(n.error) }
  elseif n.op ~= nil then
    local op = n.op
    local o = compilelist(ev, n, memo, {}, d)
    if op == "[]" and #o == 2 then c = { N_IDX, o[1], o[2] }
    elseif op == "?:" and #o == 3 then c = { N_TERN, o[1], o[2], o[3] }
    elseif op == "sizeof" and #o == 1 then c = { N_SIZEOF, o[1] }
    elseif #o == 1 and UNARY[op] then c = { N_UN, op, o[1] }
    elseif #o == 2 and BINARY[op] then c = { N_BIN, op, o[1], o[2] }
    else bad("operator " .. tostring(op) .. " with " .. #o .. " operands") end
  elseif n.cast ~= nil then
    if n[1] == nil or n[2] ~= nil then bad("cast needs one operand") end
    local a = compilenode(ev, n[1], memo, d)
    local ct = n.cast
    if ct == "pointer" then
      local es, eg = inttype(n.to)
      local pointee = n.pointee
      if pointee ~= nil and type(pointee) ~= "string" then bad("pointee") end
      c = { N_CAST, a, true, 8, false, es, eg, "", pointee }
    elseif ct == "void" or ct == "bool" then
      c = { N_CAST, a, false, 0, false, 0, false, ct }
    elseif ct == "unknown" then
      c = { N_CAST, a, false, -1, false, 0, false, "" }
    else
      local size, signed = inttype(ct)
      c = { N_CAST, a, false, size, signed, 0, false, "" }
    end
  elseif n.call ~= nil then
    if type(n.call) ~= "string" then bad("call name") end
    -- C's argument list: the arguments, then the { value, name } entries of a flag/symbol table
    c = compilelist(ev, n, memo, { N_CALL, n.call }, d)
    if n.entries ~= nil then compilelist(ev, n.entries, memo, c, d) end
  else
    c = compilelist(ev, n, memo, { N_BRACE }, d)
  end
  memo[n] = c
  return c
end

local function star(v, what)
  if v == "*" then return -2 end
  if v == nil then return -1 end
  if not isint(v) or v < 0 then bad(what .. " " .. tostring(v)) end
  return math.min(v, MAX_WIDTH)
end

-- Adds to acc the indexes of the fields compiled node n reads ({N_FLD, i} anywhere below it); seen
-- keeps shared subtrees from being walked twice.
local function fieldsof(n, acc, seen)
  if type(n) ~= "table" or seen[n] then return end
  seen[n] = true
  local tag = n[1]
  if tag == N_FLD then acc[n[2]] = true; return end
  if tag == N_LIT or tag == N_STR or tag == N_ERR or tag == N_IDENT then return end
  for k = 2, #n do
    if type(n[k]) == "table" then fieldsof(n[k], acc, seen) end
  end
end

-- Where the kernel's text shows each field: { [field index] = { first, last, plain, field, rank } },
-- a run of segments: conversions whose arguments read that field alone, adjacent or joined by
-- literal text without spaces or '=' ("%s%s" of sched_switch's prev_state prints "D" or "R+", the
-- "%d,%d" of a device number "8,0"); plain when the run is one %d/%i/%u/%s of the bare field (its
-- text is the value). A field printed in several runs takes the best: not plain and labelled with
-- its own name ("pfn=0x%lx" rather than "page=%p" of the same pfn), then not plain (softirq's
-- "vec=%u [action=%s]": the action), then labelled, then the first.
local STRKINDS = { char_array = true, dynamic_string = true }
gsub, match = string.gsub, string.match
local function fieldruns(ev, segs)
  local runs = {}
  local cur, reach = nil, 0
  for si = 1, #segs do
    local c = segs[si]
    if type(c) == "string" then
      if cur and reach == si - 1 and not find(c, "[%s=]") then reach = si else cur = nil end
    elseif not c[12] then
      cur = nil
    elseif cur and cur[4] == c[12] and reach == si - 1 then
      cur[2] = si; reach = si
      if cur[3] then
        cur[3] = false; cur[5] = cur[5] + 2
        if runs[cur[4]][5] < cur[5] then runs[cur[4]] = cur end
      end
    else
      local fi = c[12]
      local f = ev.f[fi]
      local conv = c[5]
      local plain = c[8] == fi and f ~= nil and ((conv == "s" and STRKINDS[f.kind] == true)
        or (not STRKINDS[f.kind] and (conv == "d" or conv == "i" or conv == "u")))
      local rank = plain and 0 or 2
      local prev = segs[si - 1]
      local lead = ""
      if f and type(prev) == "string" then
        -- "name=" or "name: " right before, or with a prefix the text keeps ("pfn=0x%lx": "0x")
        local label = gsub(f.name, "%W", "%%%0")
        local m = match(prev, "%f[%w_]" .. label .. "=(%S*)$") or match(prev, "%f[%w_]" .. label .. ": (%S*)$")
        if m then rank = rank + 1; lead = m end
      end
      -- [6]: the labelled prefix; [7]: the raw value reads best in hex (%p, %x)
      cur = { si, si, plain, fi, rank, lead, conv == "p" or conv == "x" or conv == "X" }
      reach = si
      local had = runs[fi]
      if had == nil or had[5] < rank then runs[fi] = cur end
    end
  end
  return runs
end

-- src: { format = { text | conversion ... }, args = { node ... } }
function compileprint(ev, src)
  if type(src) ~= "table" or type(src.format) ~= "table" then bad("no format list") end
  local memo = {}
  local segs = {}
  local nconv = 0
  for i = 1, #src.format do
    local s = src.format[i]
    if type(s) == "string" then
      segs[i] = s
    elseif type(s) == "table" then
      local conv, ext, fl = s.conv, s.ext or "", s.flags or ""
      if not CONVS[conv] then bad("conversion " .. tostring(conv)) end
      if type(ext) ~= "string" or type(fl) ~= "string" then bad("conversion flags") end
      local size = s.size or 4
      if size ~= 1 and size ~= 2 and size ~= 4 and size ~= 8 then bad("conversion size " .. tostring(size)) end
      local flags = 0
      for ch in fl:gmatch(".") do flags = bit.bor(flags, FLAGBITS[ch] or 0) end
      local seg = { flags, star(s.width, "width"), star(s.precision, "precision"), size, conv, ext,
        tostring(s.text or "%" .. conv) }
      -- c[11]: for an integer conversion without width, precision and flags that show, the C
      -- format that prints its (converted) value the same way
      if seg[2] == -1 and seg[3] == -1 and bit.band(flags, PLUS + SPACE + SPECIAL) == 0 then
        seg[11] = PLAINFMT[conv]
      end
      segs[i] = seg
      nconv = nconv + 1
    else
      bad("format piece")
    end
  end
  local args = compilelist(ev, src.args or {}, memo, {}, 1)
  -- c[8]: the field index when a conversion's argument is a plain field (render's fast path)
  local ai = 1
  for i = 1, #segs do
    local c = segs[i]
    if type(c) ~= "string" then
      if c[2] == -2 then ai = ai + 1 end
      if c[3] == -2 then ai = ai + 1 end
      local a = args[ai]
      if a and a[1] == N_FLD then c[8] = a[2] end
      -- c[9], c[10]: the argument's closure on Lua numbers and its type (fastc), when it has one
      if a then c[9], c[10] = fastc(ev, a) end
      -- c[12]: the one field the conversion's arguments (with '*' ones) read, false for none or several
      local acc, seen = {}, {}
      for k = ai - (c[2] == -2 and 1 or 0) - (c[3] == -2 and 1 or 0), ai do fieldsof(args[k], acc, seen) end
      local one = false
      for fi, _ in pairs(acc) do
        if one then one = false; break end
        one = fi
      end
      c[12] = one
      ai = ai + 1
    end
  end
  return { segs, args, fieldruns(ev, segs) }
end
end
