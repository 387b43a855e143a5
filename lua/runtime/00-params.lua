-- tracewire Wireshark dissector runtime (wire format version 2, docs/wire-format.md): this
-- folder's files concatenated in name order, the runtime alone (no event tables), decodes every
-- event from the FORMAT context its capture carries. The generator (dissector-gen,
-- org.tracewire.dissector.DissectorGenerator) concatenates the same files into a plugin, with its
-- own TW_PARAMS in place of this file and its event tables in place of 65-event-tables.lua.
-- Compatibility: Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4).

-- What the plugin was generated for (the runtime alone: nothing, an LP64 kernel assumed).
local TW_PARAMS = {
  format_hash = nil,                         -- format identity hash (16 hex digits) of the event tables
  long_size = 8,                             -- the traced kernel's sizeof(long) until a CAPTURE message says
  source = "runtime only (no event tables)", -- where the generator read the formats
}
