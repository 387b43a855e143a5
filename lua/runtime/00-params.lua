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
  -- C's integer arithmetic rules (core's org.tracewire.printfmt.CArith, which Java's evaluator
  -- applies): the generator emits this table; GeneratorTest checks that this copy is the same.
  c_arith = {
    types = {
      {name = "signed char", size = 1, signed = true, rank = 1},
      {name = "unsigned char", size = 1, signed = false, rank = 1},
      {name = "short", size = 2, signed = true, rank = 2},
      {name = "unsigned short", size = 2, signed = false, rank = 2},
      {name = "int", size = 4, signed = true, rank = 3},
      {name = "unsigned int", size = 4, signed = false, rank = 3},
      {name = "long long", size = 8, signed = true, rank = 4},
      {name = "unsigned long long", size = 8, signed = false, rank = 4},
    },
    promoted = {name = "int", size = 4, signed = true, rank = 3},
    equal_rank_unsigned = true,
    shift_count_modulo_width = true,
    division = "truncate",
    truth = {name = "int", size = 4, signed = true, rank = 3},
    bool = {name = "_Bool", size = 1, signed = false, rank = 0},
  },
}
