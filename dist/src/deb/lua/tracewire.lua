-- tracewire's Wireshark dissector as the Debian package installs it (dist/): Wireshark loads this
-- file from its global Lua plugin folder; it runs the runtime in /usr/share/tracewire/lua, which
-- decodes a capture of any kernel from the context frames the capture carries (docs/dissector.md).
--
-- Wireshark loads the global Lua plugins first, then the personal ones, then `-X lua_script:`
-- files, and refuses a second protocol named tracewire. A plugin generated for one kernel
-- (`tracewire dissector --install`, the extcap's "Install the Lua dissector", the desktop app's
-- `-X lua_script:`) adds typed fields, so when one of those will load, this one steps aside.
-- Runs on Lua 5.2 (Wireshark 4.0) and 5.4.
local RUNTIME = "/usr/share/tracewire/lua/tracewire.lua"

-- true when the file exists and starts as tracewire's runtime and generated plugins do
local function is_tracewire(path)
  local f = io.open(path, "rb")
  if not f then
    return false
  end
  local head = f:read(12) or ""
  f:close()
  return head == "-- tracewire"
end

-- true when Wireshark will load another tracewire dissector after this one
local function another_comes()
  local ok, personal = pcall(Dir.personal_plugins_path)
  if ok and personal and is_tracewire(personal .. "/tracewire.lua") then
    return true
  end
  local f = io.open("/proc/self/cmdline", "rb")
  if not f then
    return false
  end
  local cmdline = f:read("*a") or ""
  f:close()
  local prev
  for arg in cmdline:gmatch("([^\0]*)\0") do
    local opt = arg:match("^%-X(.+)$") or (prev == "-X" and arg) or nil
    local file = opt and opt:match("^lua_script:(.+)$")
    if file and is_tracewire(file) then
      return true
    end
    prev = arg
  end
  return false
end

if not another_comes() then
  dofile(RUNTIME)
end
