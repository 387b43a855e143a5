-- 30-symbols.lua: symbols and printk strings, from the capture's SYMBOLS context or the host
-- override preferences.

-- Overrides (preferences) of what the capture's context says: the traced kernel's /proc/kallsyms
-- for %pS and friends, its printk_formats for %s of a format-string pointer, and its CONFIG_HZ
-- for jiffies_to_msecs. Off by default: the capture carries its own (SYMBOLS, CAPTURE), and a file
-- from another boot or host would be resolved wrongly.
local symbols, lookupsym, ctxsym, printk
local function hex16(u) return u:tohex() end
do
local SYMS = nil        -- { addrs = { "16 hex digits" }, names = {}, mods = {}, sizes = { UInt64 } }
local SYMS_PATH = nil
local PRINTK = nil      -- { ["16 hex digits"] = string }
local PRINTK_PATH = nil

local function loadsyms(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local list = {}
  local n = 0
  for line in f:lines() do
    local a, _, name, rest = line:match("^(%x+)%s+(%S+)%s+(%S+)%s*(.*)$")
    if a and #a <= 16 then
      a = string.rep("0", 16 - #a) .. a:lower()
      if a ~= "0000000000000000" then
        local mod = rest and rest:match("^%[(.-)%]") or nil
        n = n + 1
        list[n] = { a, n, name, mod }
      end
    end
  end
  f:close()
  table.sort(list, function(x, y) return x[1] < y[1] or (x[1] == y[1] and x[2] < y[2]) end)
  local t = { addrs = {}, names = {}, mods = {}, sizes = {} }
  local m = 0
  for i = 1, n do
    local e = list[i]
    if m == 0 or t.addrs[m] ~= e[1] then
      m = m + 1
      t.addrs[m] = e[1]; t.names[m] = e[3]; t.mods[m] = e[4]
    end
  end
  for i = 1, m do
    if i < m then t.sizes[i] = U.fromhex(t.addrs[i + 1]) - U.fromhex(t.addrs[i])
    else t.sizes[i] = U1 end
  end
  return t
end

function symbols()
  local path = tw.prefs.kallsyms
  if path == nil or path == "" then return nil end
  if SYMS_PATH ~= path then SYMS = loadsyms(path); SYMS_PATH = path end
  return SYMS
end

function lookupsym(t, addr)
  local key = hex16(addr)
  local lo, hi, found = 1, #t.addrs, nil
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    if t.addrs[mid] <= key then found = mid; lo = mid + 1 else hi = mid - 1 end
  end
  if not found then return nil end
  local start = U.fromhex(t.addrs[found])
  local off = addr - start
  if not (off < t.sizes[found]) then return nil end
  return t.names[found], off, t.sizes[found], t.mods[found]
end

-- The capture's own symbol for addr (SYMBOLS context of scope cx): name, offset, size, module;
-- false when the sender found none; nil when it sent nothing about the address. For %pB
-- (backtrace) the symbol covering addr - 1, as the kernel's sprint_backtrace looks it up.
function ctxsym(cx, addr, backtrace)
  local syms = cx.syms
  local look = backtrace and (addr - U1) or addr
  local e = syms[hex16(look)]
  if e == nil and backtrace then e = syms[hex16(addr)] end
  if e == nil or e == false then return e end
  local off = look - e[2]
  if look < e[2] or not (off < e[3]) then return nil end
  return e[1], off, e[3], e[4]
end

local function unescape_c(s)
  local map = { n = "\n", t = "\t", r = "\r", a = "\a", b = "\b", f = "\f", v = "\v", e = "\27" }
  return (s:gsub("\\([0-7][0-7]?[0-7]?)", function(o) return string.char(tonumber(o, 8) % 256) end)
    :gsub("\\(.)", function(c) return map[c] or c end))
end

function printk()
  local path = tw.prefs.printk_formats
  if path == nil or path == "" then return nil end
  if PRINTK_PATH ~= path then
    PRINTK_PATH = path
    PRINTK = nil
    local f = io.open(path, "r")
    if f then
      PRINTK = {}
      for line in f:lines() do
        local a, body = line:match('^0x(%x+) : "(.*)"$')
        if a and #a <= 16 then
          a = string.rep("0", 16 - #a) .. a:lower()
          if PRINTK[a] == nil then PRINTK[a] = unescape_c(body) end
        end
      end
      f:close()
    end
  end
  return PRINTK
end
end
