package org.tracewire.dissector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.tracewire.format.CTypes;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.PrintFmt;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.SyscallText;

/**
 * Generates the self-contained Wireshark Lua plugin: the hand-written runtime
 * ({@code lua/tracewire.lua}, embedded as a resource) with one {@code EV { ... }} table per event
 * inserted between its {@code EVENT TABLES} markers: {@code id}, {@code system}, {@code name},
 * {@code syscall} (the kernel prints it as a syscall), {@code fields} (one per own field, with named
 * keys: {@code name}, {@code kind} by name, {@code size}, {@code signed}, {@code elem_size}, the
 * ProtoField's {@code abbrev} ({@code tracewire.<system>.<event>.<field>}), {@code ftype} and
 * {@code base}, the name=value {@code fallback} style, {@code values} from {@code __print_symbolic}
 * and flag {@code bits} from {@code __print_flags}), and {@code print}: the print fmt compiled by
 * {@link PrintFmtLua}, absent when {@link EventPrinter#isFallback()}, with a comment saying why (the
 * runtime then shows name=value pairs). docs/dissector.md describes the shape.
 *
 * <p>Output is deterministic: events sorted by id, no dates; the header names the format identity
 * hash of the whole catalog (what senders put into frames). Every string from a format file passes
 * through {@link LuaWriter}. {@link #forTracefs} is the one way to build the plugin for a tracefs.
 */
public final class DissectorGenerator {
    /** The running kernel's BTF, for the enum constants print fmts name (live tracefs only). */
    public static final Path BTF = Path.of("/sys/kernel/btf/vmlinux");
    /** Resource path of the runtime inside this module's jar. */
    private static final String RUNTIME_RESOURCE = "/org/tracewire/dissector/lua/tracewire.lua";
    static final String BEGIN = "-- ======================== EVENT TABLES BEGIN ========================\n";
    static final String END = "-- ======================== EVENT TABLES END ==========================\n";

    private final FormatCatalog catalog;
    private final KernelLayout layout;
    private final String sourceLabel;
    private KernelEnums enums = KernelEnums.empty();

    /**
     * @param catalog     all formats of the tracefs (the identity hash is taken over all of them)
     * @param layout      the traced kernel's byte order and long size
     * @param sourceLabel where the formats came from, for the header (e.g. a path)
     */
    public DissectorGenerator(FormatCatalog catalog, KernelLayout layout, String sourceLabel) {
        this.catalog = catalog;
        this.layout = layout;
        this.sourceLabel = sourceLabel;
    }

    /**
     * Uses the traced kernel's enum constants (from its BTF) for identifiers the kernel left
     * unresolved in print fmts; without them only a few ABI-stable constants are known.
     *
     * @return this generator
     */
    public DissectorGenerator withEnums(KernelEnums kernelEnums) {
        this.enums = kernelEnums == null ? KernelEnums.empty() : kernelEnums;
        return this;
    }

    /** The hand-written runtime, as embedded in this module. */
    private static String runtime() {
        try (InputStream in = DissectorGenerator.class.getResourceAsStream(RUNTIME_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("runtime resource " + RUNTIME_RESOURCE + " missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What one generation produced.
     *
     * @param lua            the plugin text
     * @param events         events with tables
     * @param fields         generated ProtoFields (event fields and flag bits)
     * @param fallbackEvents events whose Info column is name=value pairs
     * @param formatHash     the catalog's format identity hash
     * @param abbreviations  per event ({@code system:event}) the abbreviation of each own field, in order
     * @param warnings       what the generation did without (e.g. the kernel's enum constants), for the user
     */
    public record Result(String lua, int events, int fields, int fallbackEvents, long formatHash,
                         Map<String, List<String>> abbreviations, List<String> warnings) {
        /** {@code N events, M fields, format hash H}. */
        public String summary() {
            return events + " events, " + fields + " fields, format hash " + FormatIdentity.hex(formatHash);
        }

        /**
         * Writes the plugin atomically ({@link org.tracewire.io.AtomicFile}: fsync, then a rename).
         *
         * @return the written file, absolute
         */
        public Path write(Path file) throws IOException {
            org.tracewire.io.AtomicFile.write(file, lua);
            return file.toAbsolutePath();
        }

        /**
         * Installs the plugin into the invoking user's Wireshark personal plugin folder
         * ({@link PluginInstaller#currentTarget()}).
         *
         * @return the installed file
         */
        public Path install() throws IOException {
            return PluginInstaller.install(PluginInstaller.currentTarget(), lua);
        }
    }

    /**
     * The plugin for a tracefs and an event selection: the one way the command line and the
     * desktop app build it. The tracefs's formats, byte order, long size and label; for a live
     * tracefs also the running kernel's enum constants from its BTF ({@link #BTF}; when it cannot
     * be read, {@link Result#warnings()} says so).
     *
     * @param tracefs   a live tracefs or a snapshot
     * @param selectors {@code SYSTEM:EVENT} / {@code SYSTEM:*} ({@link org.tracewire.tracefs.EventSelector}); empty for all events
     * @throws IllegalArgumentException for a malformed selector or one that matches nothing
     */
    public static Result forTracefs(Tracefs tracefs, List<String> selectors) {
        FormatCatalog catalog = tracefs.formats();
        List<EventFormat> selection = org.tracewire.tracefs.EventSelector.select(catalog, selectors);
        List<String> warnings = new ArrayList<>();
        KernelEnums enums = KernelEnums.empty();
        if (tracefs.isLive() && Files.isReadable(BTF)) {
            try {
                enums = KernelEnums.load(BTF);
            } catch (IOException | RuntimeException e) {
                warnings.add("kernel enum constants not read from " + BTF + ": " + e.getMessage());
            }
        }
        Result r = new DissectorGenerator(catalog, tracefs.layout(), tracefs.label()).withEnums(enums).generate(selection);
        return new Result(r.lua(), r.events(), r.fields(), r.fallbackEvents(), r.formatHash(), r.abbreviations(),
                List.copyOf(warnings));
    }

    /**
     * Generates the plugin for a selection of the catalog's formats.
     *
     * @param selection the events to generate tables for (others are still shown generically)
     */
    public Result generate(List<EventFormat> selection) {
        long hash = FormatIdentity.of(catalog);
        List<EventFormat> events = new ArrayList<>(selection);
        events.sort(Comparator.comparingInt(EventFormat::id).thenComparing(EventFormat::fullName));
        String rt = runtime();
        int b = rt.indexOf(BEGIN);
        int e = rt.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalStateException("runtime lacks the EVENT TABLES markers");
        }
        FieldNames names = new FieldNames(Set.of());
        StringBuilder tables = new StringBuilder(1 << 20);
        int fields = 0;
        int fallbacks = 0;
        Set<Integer> seen = new java.util.HashSet<>();
        Map<String, List<String>> abbreviations = new LinkedHashMap<>();
        for (EventFormat f : events) {
            if (!seen.add(f.id())) {
                tables.append("-- skipped: duplicate event id ").append(f.id()).append(' ')
                        .append(LuaWriter.string(f.fullName())).append('\n');
                continue;
            }
            List<String> abbrevs = new ArrayList<>();
            abbreviations.put(f.fullName(), abbrevs);
            EventOut o = event(f, names, abbrevs);
            tables.append(o.text);
            fields += o.fields;
            fallbacks += o.fallback ? 1 : 0;
        }
        StringBuilder out = new StringBuilder(rt.length() + tables.length() + 1024);
        out.append("-- tracewire Wireshark dissector. GENERATED by tracewire dissector-gen")
                .append(" (org.tracewire.dissector.DissectorGenerator): do not edit, regenerate.\n");
        out.append("-- format identity hash: ").append(FormatIdentity.hex(hash)).append('\n');
        out.append("-- events: ").append(seen.size()).append(" of ").append(catalog.formats().size())
                .append(", generated fields: ").append(fields).append(", name=value fallbacks: ").append(fallbacks)
                .append('\n');
        out.append("-- source: ").append(LuaWriter.string(sourceLabel)).append('\n');
        out.append("-- Runs on Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). Wire format: docs/wire-format.md.\n\n");
        String head = rt.substring(0, b);
        head = replaceOnce(head, "local TW_GEN_HASH = nil\n",
                "local TW_GEN_HASH = " + LuaWriter.string(FormatIdentity.hex(hash)) + "\n");
        head = replaceOnce(head, "local TW_LONG_SIZE = 8\n", "local TW_LONG_SIZE = " + layout.longSize() + "\n");
        head = replaceOnce(head, "local TW_GEN_SOURCE = \"runtime only (no event tables)\"\n",
                "local TW_GEN_SOURCE = " + LuaWriter.string(sourceLabel) + "\n");
        out.append(head).append(BEGIN).append(tables).append(rt.substring(e));
        return new Result(out.toString(), seen.size(), fields, fallbacks, hash,
                java.util.Collections.unmodifiableMap(abbreviations), List.of());
    }

    private static String replaceOnce(String s, String what, String with) {
        int i = s.indexOf(what);
        if (i < 0) {
            throw new IllegalStateException("runtime lacks: " + what.trim());
        }
        return s.substring(0, i) + with + s.substring(i + what.length());
    }

    private record EventOut(String text, int fields, boolean fallback) {
    }

    private EventOut event(EventFormat f, FieldNames names, List<String> abbrevs) {
        String prefix = FieldNames.eventPrefix(f.system(), f.name());
        EventPrinter printer = EventPrinter.compile(f, layout);
        String pfLua = null;
        String reason = printer.fallbackReason();
        Map<String, Map<Long, String>> symbolic = new LinkedHashMap<>();
        Map<String, Map<Long, String>> flagTables = new LinkedHashMap<>();
        if (!printer.isFallback()) {
            try {
                pfLua = new PrintFmtLua(f, layout.longSize(), enums).compile(printer.printFmt(), 2);
                collectTables(printer.printFmt(), symbolic, flagTables);
            } catch (PrintFmtLua.TooComplex ex) {
                reason = ex.getMessage();
            }
        }
        StringBuilder sb = new StringBuilder(512);
        sb.append("-- ").append(LuaWriter.string(f.fullName())).append('\n');
        if (pfLua == null) {
            sb.append("-- Info: name=value pairs, the print fmt is not reproduced: ")
                    .append(LuaWriter.string(reason)).append('\n');
        }
        LuaTable ev = LuaTable.vertical().num("id", f.id()).str("system", f.system()).str("name", f.name());
        if (SyscallText.handles(f)) {
            ev.bool("syscall", true);
        }
        LuaTable fields = LuaTable.vertical();
        int count = 0;
        for (Field fl : f.fields()) {
            String abbrev = names.unique(prefix, fl.name());
            abbrevs.add(abbrev);
            count++;
            String[] type = protoType(fl);
            LuaTable spec = LuaTable.inline().str("name", fl.name()).str("kind", kindName(fl.kind()))
                    .num("size", fl.size());
            if (fl.signed()) {
                spec.bool("signed", true);
            }
            if (fl.kind() != FieldKind.INTEGER && fl.kind() != FieldKind.POINTER && fl.kind() != FieldKind.CHAR_ARRAY) {
                spec.num("elem_size", elementSize(fl));
            }
            spec.str("abbrev", abbrev).str("ftype", type[0]);
            if (type[1].equals("hex")) {
                spec.str("base", "hex");
            }
            spec.str("fallback", fallbackStyle(fl));
            boolean smallInt = fl.kind() == FieldKind.INTEGER && (fl.size() == 1 || fl.size() == 2 || fl.size() == 4);
            Map<Long, String> vs = smallInt ? symbolic.get(fl.name()) : null;
            Map<Long, String> fb = smallInt ? flagTables.get(fl.name()) : null;
            if (vs != null && !vs.isEmpty()) {
                LuaTable values = LuaTable.vertical();
                for (Map.Entry<Long, String> en : new TreeMap<>(vs).entrySet()) {
                    values.at(extend(en.getKey(), fl.size(), fl.signed()), en.getValue());
                }
                spec.set("values", values);
            }
            if (fb != null && !fb.isEmpty()) {
                LuaTable bits = LuaTable.vertical();
                long fieldMask = fl.size() == 4 ? 0xffffffffL : (1L << (8 * fl.size())) - 1;
                for (Map.Entry<Long, String> en : fb.entrySet()) {
                    long mask = en.getKey() & fieldMask;
                    if (mask == 0) {
                        continue;
                    }
                    count++;
                    bits.add(LuaTable.inline().str("abbrev", names.unique(abbrev, en.getValue()))
                            .str("name", en.getValue()).hex("mask", mask));
                }
                if (!bits.isEmpty()) {
                    spec.set("bits", bits);
                }
            }
            fields.add(spec);
        }
        ev.set("fields", fields);
        if (pfLua != null) {
            ev.set("print", LuaValue.Lit.generated(pfLua));
        }
        sb.append("EV ").append(ev.render(0, 3, Map.of())).append('\n');
        return new EventOut(sb.toString(), count, pfLua == null);
    }

    private static long extend(long v, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? (byte) v : v & 0xffL;
            case 2 -> signed ? (short) v : v & 0xffffL;
            case 4 -> signed ? (int) v : v & 0xffffffffL;
            default -> v;
        };
    }

    /** Value strings and flag tables of {@code __print_symbolic} / {@code __print_flags} on a plain field. */
    private static void collectTables(PrintFmt pf, Map<String, Map<Long, String>> symbolic,
                                      Map<String, Map<Long, String>> flags) {
        for (Expr e : pf.args()) {
            walk(e, symbolic, flags);
        }
    }

    private static void walk(Expr e, Map<String, Map<Long, String>> symbolic, Map<String, Map<Long, String>> flags) {
        if (e instanceof Expr.Call c) {
            boolean sym = c.name().equals("__print_symbolic");
            boolean fl = c.name().equals("__print_flags");
            if ((sym || fl) && !c.args().isEmpty()) {
                Expr v = c.args().get(0);
                while (v instanceof Expr.Cast cast) {
                    v = cast.operand();
                }
                if (v instanceof Expr.FieldRef f && f.field() != null) {
                    Map<Long, String> table = new LinkedHashMap<>();
                    for (int i = sym ? 1 : 2; i < c.args().size(); i++) {
                        if (c.args().get(i) instanceof Expr.Braced b && b.items().size() == 2
                                && b.items().get(0) instanceof Expr.IntLit k && b.items().get(1) instanceof Expr.StrLit s
                                && !s.value().isEmpty()) {
                            table.putIfAbsent(k.value(), s.value());
                        }
                    }
                    if (!table.isEmpty()) {
                        (sym ? symbolic : flags).putIfAbsent(f.name(), table);
                    }
                }
            }
            for (Expr a : c.args()) {
                walk(a, symbolic, flags);
            }
        } else if (e instanceof Expr.Ternary t) {
            walk(t.cond(), symbolic, flags);
            walk(t.then(), symbolic, flags);
            walk(t.otherwise(), symbolic, flags);
        } else if (e instanceof Expr.Binary b) {
            walk(b.left(), symbolic, flags);
            walk(b.right(), symbolic, flags);
        } else if (e instanceof Expr.Cast c) {
            walk(c.operand(), symbolic, flags);
        } else if (e instanceof Expr.Unary u) {
            walk(u.operand(), symbolic, flags);
        }
    }

    /** The runtime's name of a field kind ({@code KINDS} in {@code lua/tracewire.lua}). */
    static String kindName(FieldKind k) {
        return switch (k) {
            case INTEGER -> "int";
            case POINTER -> "pointer";
            case CHAR_ARRAY -> "char_array";
            case ARRAY -> "array";
            case DYNAMIC_STRING -> "dynamic_string";
            case DYNAMIC_ARRAY -> "dynamic_array";
            case DYNAMIC_CPUMASK -> "dynamic_cpumask";
            case OPAQUE -> "opaque";
        };
    }

    private static int elementSize(Field f) {
        try {
            return Math.max(1, f.elementSize());
        } catch (RuntimeException e) {
            return 1;
        }
    }

    /** The runtime's ProtoField type and base for a field: {@code {"u32","dec"}}, {@code {"str",""}}, … */
    static String[] protoType(Field f) {
        int s = f.size();
        boolean scalar = s == 1 || s == 2 || s == 4 || s == 8;
        return switch (f.kind()) {
            case INTEGER -> scalar ? new String[] {(f.signed() ? "i" : "u") + (8 * s), "dec"} : new String[] {"bytes", ""};
            case POINTER -> scalar ? new String[] {"u" + (8 * s), "hex"} : new String[] {"bytes", ""};
            case CHAR_ARRAY, DYNAMIC_STRING -> new String[] {"str", ""};
            default -> new String[] {"bytes", ""};
        };
    }

    /**
     * How {@code EventPrinter.fallbackText} prints the field: string, pointer, hex (a C long),
     * signed, unsigned or bytes.
     */
    static String fallbackStyle(Field f) {
        switch (f.kind()) {
            case CHAR_ARRAY, DYNAMIC_STRING -> {
                return "string";
            }
            case POINTER -> {
                return "pointer";
            }
            case INTEGER -> {
                if (f.size() != 1 && f.size() != 2 && f.size() != 4 && f.size() != 8) {
                    return "bytes";
                }
                String t = CTypes.normalize(f.type());
                if (t.equals("long") || t.equals("unsigned long") || t.equals("long int")
                        || t.equals("long unsigned int") || t.equals("unsigned long int") || t.equals("signed long")) {
                    return "hex";
                }
                return f.signed() ? "signed" : "unsigned";
            }
            default -> {
                return "bytes";
            }
        }
    }
}
