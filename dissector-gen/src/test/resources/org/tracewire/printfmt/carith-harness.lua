-- CArithAgreementTest's harness, appended to the runtime's parameters and evaluators (it sees
-- their locals) after `local CASES = {...}`: each case is a C expression as nested tables,
--   {"k", lo, hi, size, signed}  a constant (the 64-bit pattern's 32-bit halves)
--   {"u", op, a}  {"b", op, a, b}  {"t", cond, a, b}  {"c", size, signed, a}  {"c", "bool", a}
-- built into the evaluator's nodes as compileprint builds them, evaluated by the general
-- evaluator and, where it compiles one, by the fast evaluator's closure. One line per case:
--   index general fast
-- general: size:s|u:16 hex digits, or err (an evaluation failure); fast: - (no closure), nil
-- (declined for this value) or size:s|u:decimal. A Lua error (a bug) stops the harness.
do
  local ctx = { ev = { f = {} }, s = "", b = 0, pl = 0, le = true }
  local function node(d)
    local t = d[1]
    if t == "k" then
      local x = int(U.new(d[2], d[3]), d[4], d[5])
      x.c = {}
      return { N_LIT, x }
    elseif t == "u" then return { N_UN, d[2], node(d[3]) }
    elseif t == "b" then return { N_BIN, d[2], node(d[3]), node(d[4]) }
    elseif t == "t" then return { N_TERN, node(d[2]), node(d[3]), node(d[4]) }
    elseif t == "c" then
      if d[2] == "bool" then return { N_CAST, node(d[3]), false, 0, false, 0, false, "bool" } end
      return { N_CAST, node(d[4]), false, d[2], d[3], 0, false, "" }
    end
    error("bad case node " .. tostring(t))
  end
  local function hex(b) return string.format("%08x%08x", b:higher(), b:lower()) end
  local out = {}
  for i, d in ipairs(CASES) do
    local n = node(d)
    local ok, v = pcall(eval, ctx, n)
    local g
    if ok then
      g = v.s .. ":" .. (v.g and "s" or "u") .. ":" .. hex(v.b)
    elseif type(v) == "table" and v.tw then
      g = "err"
    else
      error("case " .. i .. ": " .. tostring(v), 0)
    end
    local fn, _, size, signed = fastc(ctx.ev, n)
    local f = "-"
    if fn then
      local ok2, r = pcall(fn, ctx)
      if not ok2 then error("case " .. i .. " (fast): " .. tostring(r), 0) end
      if r == nil then f = "nil" else f = size .. ":" .. (signed and "s" or "u") .. ":" .. string.format("%.0f", r) end
    end
    out[#out + 1] = i .. " " .. g .. " " .. f
  end
  io.write(table.concat(out, "\n"), "\n")
end
