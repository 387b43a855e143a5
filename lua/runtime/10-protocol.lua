-- 10-protocol.lua: the protocol, its preferences, the context limits, the header fields, the
-- expert infos and the latency analysis fields (all registered in 90-dissector.lua).

-- tracewire frames, wire format version 2 (docs/wire-format.md): Ethernet frames of EtherType
-- 0x88B5 and pcapng records of link type LINKTYPE_USER15 (162). The runtime implements the 16-byte
-- header, EVENT frames (the ring-buffer record's payload, fields at their format offsets), the
-- in-band context (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST messages, reassembled from fragments per
-- scope), expert infos, and an evaluator for print fmts (C expressions with the kernel's vsprintf
-- semantics). An event the generated tables (65-event-tables.lua) do not know is decoded from the
-- description tree its FORMAT message carries (the same schema, docs/dissector.md).
--
-- Rules for every file: Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). No bit operators, no bit32,
-- no integer division: 64-bit arithmetic uses Wireshark's UInt64/Int64, every read is
-- length-checked, capture data is never given to load(), and per-frame work runs under pcall so a
-- hostile frame yields expert info. The files form one chunk, and Lua 5.2 allows 200 active locals
-- in a function: a file declares as locals only the names later files use, and keeps its private
-- helpers inside a `do ... end` block, whose locals end with it. lua/README.md says how to check a
-- change.

local TW_VERSION = "2"

local tw = Proto("tracewire", "tracewire trace event")
tw.prefs.ethertype = Pref.uint("EtherType", 0x88B5, "EtherType of tracewire frames, in decimal (default 34997 = 0x88B5)")
tw.prefs.kallsyms = Pref.string("kallsyms file", "",
  "Override: the traced kernel's /proc/kallsyms (same boot) for %pS/%ps symbols, before the capture's own symbols; empty: off")
tw.prefs.printk_formats = Pref.string("printk_formats file", "",
  "Override: the traced kernel's tracefs printk_formats for %s of format-string pointers; empty: the capture's own")
tw.prefs.hz = Pref.uint("HZ", 0, "Override: the traced kernel's CONFIG_HZ for jiffies_to_msecs; 0: the capture's own")

local CAP = {}
-- Bounds of the context kept per scope (a host: an Ethernet source MAC or a pcapng interface) and
-- in total; a message beyond them is dropped with an expert info.
CAP.FORMATS = 8192          -- FORMAT messages (events) per scope
CAP.SYMBOLS = 262144        -- symbols and printk strings per scope
CAP.PROCS = 262144          -- process entries (pid -> comm, tgid; a comm change is one more) per scope
CAP.SCOPES = 256            -- scopes
CAP.MESSAGE = 4194304       -- bytes of one reassembled message
CAP.PENDING = 64            -- messages being reassembled, all scopes
CAP.PENDING_BYTES = 16777216 -- bytes held for reassembly, all scopes
CAP.CONSTANTS = 4096        -- CAPTURE constants, and BTF enum constants per FORMAT
CAP.REVISIT_BYTES = 33554432 -- reassembled messages kept to show their frames again
CAP.SCOPE_BYTES = 33554432  -- bytes of context kept per scope (formats, symbols, strings, comms)
CAP.TOTAL_BYTES = 134217728 -- the same over all scopes
CAP.TREE = 1048576          -- bytes of one description tree
local MAX_DEPTH = 64              -- description tree nesting (docs/wire-format.md 4.6)
local KIND_NAMES = { [0] = "EVENT", [1] = "CAPTURE", [2] = "FORMAT", [3] = "SYMBOLS", [4] = "PROCESS", [5] = "LOST" }
local HF = {
  version = ProtoField.uint8("tracewire.version", "Version", base.DEC),
  kind = ProtoField.uint8("tracewire.kind", "Kind", base.DEC, KIND_NAMES, 0x0F),
  flags = ProtoField.uint8("tracewire.flags", "Flags", base.HEX, nil, 0xF0),
  flags_le = ProtoField.bool("tracewire.flags.little_endian", "Little-endian payload", 8, nil, 0x10),
  flags_trunc = ProtoField.bool("tracewire.flags.truncated", "Truncated", 8, nil, 0x20),
  flags_raw = ProtoField.bool("tracewire.flags.raw_clock", "Raw trace clock", 8, nil, 0x40),
  flags_res = ProtoField.bool("tracewire.flags.reserved", "Reserved", 8, nil, 0x80),
  cpu = ProtoField.uint16("tracewire.cpu", "CPU", base.DEC),
  seq = ProtoField.uint32("tracewire.seq", "Sequence", base.DEC),
  time = ProtoField.absolute_time("tracewire.time", "Time", base.UTC),
  time_ns = ProtoField.uint64("tracewire.time_ns", "Time (ns since the epoch)", base.DEC),
  header = ProtoField.none("tracewire.header", "Header"),
  event_id = ProtoField.uint16("tracewire.event_id", "Event id (common_type)", base.DEC),
  common_flags = ProtoField.uint8("tracewire.common_flags", "Common flags", base.HEX),
  cf_irqs_off = ProtoField.bool("tracewire.common_flags.irqs_off", "IRQs off", 8, nil, 0x01),
  cf_resched_lazy = ProtoField.bool("tracewire.common_flags.need_resched_lazy", "Need resched (lazy)", 8, nil, 0x02),
  cf_resched = ProtoField.bool("tracewire.common_flags.need_resched", "Need resched", 8, nil, 0x04),
  cf_hardirq = ProtoField.bool("tracewire.common_flags.hardirq", "Hard IRQ", 8, nil, 0x08),
  cf_softirq = ProtoField.bool("tracewire.common_flags.softirq", "Soft IRQ", 8, nil, 0x10),
  cf_preempt_resched = ProtoField.bool("tracewire.common_flags.preempt_resched", "Preempt resched", 8, nil, 0x20),
  cf_nmi = ProtoField.bool("tracewire.common_flags.nmi", "NMI", 8, nil, 0x40),
  cf_bh_off = ProtoField.bool("tracewire.common_flags.bh_off", "BH off", 8, nil, 0x80),
  preempt_count = ProtoField.uint8("tracewire.preempt_count", "Preempt count", base.HEX),
  preempt_depth = ProtoField.uint8("tracewire.preempt_count.depth", "Preempt depth", base.DEC, nil, 0x0F),
  migrate_disable = ProtoField.uint8("tracewire.preempt_count.migrate_disable", "Migrate disable", base.DEC, nil, 0xF0),
  pid = ProtoField.int32("tracewire.pid", "PID (common_pid)", base.DEC),
  comm = ProtoField.string("tracewire.comm", "Command (comm)"),
  tgid = ProtoField.int32("tracewire.tgid", "Thread group (tgid)", base.DEC),
  event = ProtoField.string("tracewire.event", "Event"),
  text = ProtoField.string("tracewire.text", "Text"),
  payload = ProtoField.bytes("tracewire.payload", "Payload"),
  field = ProtoField.none("tracewire.field", "Field"),
  field_name = ProtoField.string("tracewire.field.name", "Name"),
  field_value = ProtoField.string("tracewire.field.value", "Value"),
  field_text = ProtoField.string("tracewire.field.text", "Text (as the kernel prints it)"),
  lost = ProtoField.uint64("tracewire.lost", "Lost events", base.DEC),
  -- context frames
  msg_id = ProtoField.uint32("tracewire.message.id", "Message id", base.DEC),
  frag_index = ProtoField.uint16("tracewire.message.fragment", "Fragment index", base.DEC),
  frag_count = ProtoField.uint16("tracewire.message.fragments", "Fragment count", base.DEC),
  msg_len = ProtoField.uint32("tracewire.message.length", "Message length", base.DEC),
  msg_frame = ProtoField.framenum("tracewire.message.reassembled_in", "Reassembled in", base.NONE),
  item = ProtoField.bytes("tracewire.item", "Item"),
  item_type = ProtoField.uint16("tracewire.item.type", "Type", base.DEC),
  capture_id = ProtoField.string("tracewire.capture.id", "Capture id"),
  capture_kernel = ProtoField.string("tracewire.capture.kernel", "Kernel release"),
  capture_host = ProtoField.string("tracewire.capture.host", "Host"),
  capture_clock = ProtoField.string("tracewire.capture.clock", "Trace clock"),
  format_id = ProtoField.uint16("tracewire.format.id", "Event id", base.DEC),
  format_name = ProtoField.string("tracewire.format.event", "Event"),
  symbol_address = ProtoField.uint64("tracewire.symbol.address", "Address", base.HEX),
  symbol_name = ProtoField.string("tracewire.symbol.name", "Symbol"),
  process_pid = ProtoField.int32("tracewire.process.pid", "PID", base.DEC),
  process_tgid = ProtoField.int32("tracewire.process.tgid", "TGID", base.DEC),
  process_comm = ProtoField.string("tracewire.process.comm", "Command"),
}

local EF = {
  lost = ProtoExpert.new("tracewire.expert.lost", "Events lost", expert.group.SEQUENCE, expert.severity.WARN),
  truncated = ProtoExpert.new("tracewire.expert.truncated", "Truncated event", expert.group.MALFORMED, expert.severity.WARN),
  unknown = ProtoExpert.new("tracewire.expert.unknown_event", "Unknown event", expert.group.UNDECODED, expert.severity.NOTE),
  no_context = ProtoExpert.new("tracewire.expert.no_context", "Event decoded without its FORMAT context",
    expert.group.UNDECODED, expert.severity.NOTE),
  malformed = ProtoExpert.new("tracewire.expert.malformed", "Malformed frame", expert.group.MALFORMED, expert.severity.ERROR),
  version = ProtoExpert.new("tracewire.expert.version", "Other wire format version", expert.group.PROTOCOL,
    expert.severity.ERROR),
  reserved = ProtoExpert.new("tracewire.expert.reserved_kind", "Reserved frame kind", expert.group.PROTOCOL,
    expert.severity.NOTE),
  cap = ProtoExpert.new("tracewire.expert.context_cap", "Context limit reached", expert.group.PROTOCOL,
    expert.severity.WARN),
  changed = ProtoExpert.new("tracewire.expert.format_changed", "FORMAT changes an event id", expert.group.PROTOCOL,
    expert.severity.NOTE),
  fragment = ProtoExpert.new("tracewire.expert.fragment", "Context fragment dropped", expert.group.REASSEMBLE,
    expert.severity.WARN),
  internal = ProtoExpert.new("tracewire.expert.internal", "Dissector internal error", expert.group.UNDECODED,
    expert.severity.ERROR),
}

-- All ProtoFields, in registration order (header fields first, then the generated ones).
local ALL_FIELDS = {}
do
  local names = {}
  for k, _ in pairs(HF) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do ALL_FIELDS[#ALL_FIELDS + 1] = HF[k] end
end

-- Latency analysis fields (generated items, as tcp.analysis): see "latency analysis" below.
local AF = {
  analysis = ProtoField.none("tracewire.analysis", "Latency analysis"),
  kind = ProtoField.string("tracewire.analysis.kind", "Kind"),
  latency = ProtoField.relative_time("tracewire.analysis.latency", "Latency"),
  latency_ns = ProtoField.uint64("tracewire.analysis.latency_ns", "Latency (ns)", base.DEC),
  start_frame = ProtoField.framenum("tracewire.analysis.start_frame", "Start frame", base.NONE,
    frametype and frametype.REQUEST or nil),
  end_frame = ProtoField.framenum("tracewire.analysis.end_frame", "End frame", base.NONE,
    frametype and frametype.RESPONSE or nil),
}
local AF_LIST = { AF.analysis, AF.kind, AF.latency, AF.latency_ns, AF.start_frame, AF.end_frame }
for k = 1, #AF_LIST do ALL_FIELDS[#ALL_FIELDS + 1] = AF_LIST[k] end

-- Stack traces: ftrace:kernel_stack and ftrace:user_stack records (capture --stack,
-- docs/stacks.md). Their print fmts ("\t=> %ps\n" x 8) are not what the kernel prints:
-- trace_stack_print() and trace_user_stack_print() (kernel/trace/trace_output.c) do, with the
-- default trace options. A kernel stack's caller array runs to the record's end (its size entries,
-- not the format's 8) or to ULONG_MAX, each frame its symbol's name (the capture's SYMBOLS context,
-- else the kallsyms preference), 0x%08lx when unknown, 0 for 0; a user stack's 8 entries to the
-- first 0, " <%016lx>", then " NAME+0xOFF [FILE]" where the capture resolved it in the process
-- (SYMBOLS items 4, kept in the scope's syms under "u<tgid>:<hex16>" by applymsg), with its file
-- and that file's build id (items 6, under "b<tgid>:<file>").
local SF = {
  stack = ProtoField.none("tracewire.stack", "Stack trace"),
  func = ProtoField.string("tracewire.stack.func", "Function"),
  address = ProtoField.uint64("tracewire.stack.address", "Address", base.HEX),
  -- a user frame's mapped file, and its GNU build id (hex) when the capture sent one (SYMBOLS item 6)
  module = ProtoField.string("tracewire.stack.module", "Module"),
  build_id = ProtoField.string("tracewire.stack.build_id", "Build id"),
  -- the links between an event and the stack records that follow it (75-analysis.lua)
  event = ProtoField.framenum("tracewire.stack.event", "Stack of the event in frame", base.NONE,
    frametype and frametype.REQUEST or nil),
  frame = ProtoField.framenum("tracewire.event.stack", "Stack trace in frame", base.NONE,
    frametype and frametype.RESPONSE or nil),
}
local SF_LIST = { SF.stack, SF.func, SF.address, SF.module, SF.build_id, SF.event, SF.frame }
for k = 1, #SF_LIST do ALL_FIELDS[#ALL_FIELDS + 1] = SF_LIST[k] end

-- The pcapng interface of a USER15 record: the scope of its context (docs/wire-format.md 4).
local F_IFID = Field.new("frame.interface_id")
