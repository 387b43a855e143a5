package org.tracewire.dissector;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.KernelLayout;
import org.tracewire.io.AtomicFile;
import org.tracewire.printfmt.CArith;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.description.EventDescription;
import org.tracewire.wire.description.FieldNames;
import org.tracewire.wire.description.LuaTable;
import org.tracewire.wire.description.LuaValue;
import org.tracewire.wire.description.LuaWriter;
import org.tracewire.wire.description.PrintFmtLua;

/**
 * Generates the self-contained Wireshark Lua plugin: the hand-written runtime (the files of
 * {@code lua/runtime/}, embedded as resources, concatenated in {@link #RUNTIME_FILES} order) with
 * the generator's parameters ({@code local TW_PARAMS = { format_hash = …, long_size = …, source = …,
 * c_arith = … }}, the last C's integer arithmetic rules from {@link CArith}) in place of {@value #PARAMS_FILE} and one {@code EV { ... }} table per event between the
 * {@code EVENT TABLES} markers, in place of {@value #TABLES_FILE}: {@code id}, {@code system}, {@code name},
 * {@code syscall} (the kernel prints it as a syscall), {@code fields} (one per own field, with named
 * keys: {@code name}, {@code kind} by name, {@code size}, {@code signed}, {@code elem_size}, the
 * ProtoField's {@code abbrev} ({@code tracewire.<system>.<event>.<field>}), {@code ftype} and
 * {@code base}, the name=value {@code fallback} style, {@code values} from {@code __print_symbolic},
 * flag {@code bits} from {@code __print_flags} and {@code text}, the abbreviation of the field's text
 * ProtoField ({@link EventDescription#textFields})), and {@code print}: the print fmt compiled by
 * {@link PrintFmtLua}, absent when {@link org.tracewire.printfmt.EventPrinter#isFallback()}, with a comment saying why (the
 * runtime then shows name=value pairs). docs/dissector.md describes the shape.
 *
 * <p>Output is deterministic: events sorted by id, no dates; the header names the format identity
 * hash of the whole catalog (what senders put into frames). Every string from a format file passes
 * through {@link LuaWriter}. {@link #forTracefs} is the one way to build the plugin for a tracefs.
 */
public final class DissectorGenerator {
    /** The running kernel's BTF, for the enum constants print fmts name (live tracefs only). */
    public static final Path BTF = Path.of("/sys/kernel/btf/vmlinux");
    /** Resource folder of the runtime's files inside this module's jar ({@code lua/runtime/}). */
    private static final String RUNTIME_RESOURCES = "/org/tracewire/dissector/lua/runtime/";
    /** The runtime's files in concatenation order: their names' order, as {@code cat lua/runtime/*.lua}. */
    public static final List<String> RUNTIME_FILES = List.of("00-params.lua", "10-protocol.lua", "20-values.lua",
            "30-symbols.lua", "40-evaluator.lua", "45-fast-evaluator.lua", "50-print-tables.lua",
            "55-fallback-text.lua", "60-events.lua", "65-event-tables.lua", "70-dissection-helpers.lua",
            "75-analysis.lua", "80-context.lua", "90-dissector.lua");
    /** The runtime file that holds the runtime alone's {@code TW_PARAMS}; a plugin has the generator's instead. */
    static final String PARAMS_FILE = "00-params.lua";
    /** The runtime file whose place the event tables take. */
    static final String TABLES_FILE = "65-event-tables.lua";
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

    /**
     * One file of the hand-written runtime, as embedded in this module.
     *
     * @param name a name of {@link #RUNTIME_FILES}, e.g. {@code 40-evaluator.lua}
     * @throws IllegalStateException when the module lacks it
     */
    public static String runtimeFile(String name) {
        String resource = RUNTIME_RESOURCES + name;
        try (InputStream in = DissectorGenerator.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("runtime resource " + resource + " missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The runtime alone, without event tables: every event is decoded from the FORMAT context its
     * capture carries (docs/dissector.md). The concatenation of {@code lua/runtime/*.lua}; what the
     * Debian package installs.
     *
     * @return the Lua text (UTF-8 when written)
     */
    public static String runtimeOnly() {
        StringBuilder out = new StringBuilder(1 << 18);
        for (String name : RUNTIME_FILES) {
            out.append(runtimeFile(name));
        }
        return out.toString();
    }

    /**
     * The generated {@code TW_PARAMS} table (what {@link #PARAMS_FILE} declares for the runtime
     * alone), every string escaped by {@link LuaWriter}.
     */
    private String params(long hash) {
        return params(FormatIdentity.hex(hash), layout.longSize(), sourceLabel);
    }

    /**
     * The {@code TW_PARAMS} table's source: format hash (16 hex digits), the kernel's
     * {@code sizeof(long)}, the source label and {@link #cArith()}; strings escaped by {@link LuaWriter}.
     */
    public static String params(String formatHash, int longSize, String source) {
        LuaTable t = LuaTable.vertical()
                .str("format_hash", formatHash)
                .num("long_size", longSize)
                .str("source", source)
                .set("c_arith", cArith());
        return "-- What this plugin was generated for (00-params.lua of the runtime alone says the same).\n"
                + "local TW_PARAMS = " + t.render(0, 3, Map.of()) + "\n\n";
    }

    /**
     * C's integer arithmetic rules ({@link CArith}) as the Lua table {@code TW_PARAMS.c_arith} the
     * runtime's evaluators read: {@code types} ({@code {name, size, signed, rank}} narrowest first),
     * {@code promoted}, {@code equal_rank_unsigned}, {@code shift_count_modulo_width},
     * {@code division}, {@code truth} and {@code bool}.
     */
    static LuaTable cArith() {
        LuaTable types = LuaTable.vertical();
        CArith.TYPES.forEach(t -> types.add(cType(t)));
        return LuaTable.vertical()
                .set("types", types)
                .set("promoted", cType(CArith.PROMOTED))
                .bool("equal_rank_unsigned", CArith.EQUAL_RANK_UNSIGNED)
                .bool("shift_count_modulo_width", CArith.SHIFT_COUNT_MODULO_WIDTH)
                .str("division", CArith.DIVISION)
                .set("truth", cType(CArith.TRUTH))
                .set("bool", cType(CArith.BOOL));
    }

    private static LuaTable cType(CArith.IntType t) {
        return LuaTable.inline().str("name", t.name()).num("size", t.size()).bool("signed", t.signed())
                .num("rank", t.rank());
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
            AtomicFile.write(file, lua);
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
        List<EventFormat> selection = EventSelector.select(catalog, selectors);
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
        FieldNames names = new FieldNames(Set.of());
        StringBuilder tables = new StringBuilder(1 << 20);
        int fields = 0;
        int fallbacks = 0;
        Set<Integer> seen = new HashSet<>();
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
        StringBuilder out = new StringBuilder((1 << 18) + tables.length());
        out.append("-- tracewire Wireshark dissector. GENERATED by tracewire dissector-gen")
                .append(" (org.tracewire.dissector.DissectorGenerator): do not edit, regenerate.\n");
        out.append("-- format identity hash: ").append(FormatIdentity.hex(hash)).append('\n');
        out.append("-- events: ").append(seen.size()).append(" of ").append(catalog.formats().size())
                .append(", generated fields: ").append(fields).append(", name=value fallbacks: ").append(fallbacks)
                .append('\n');
        out.append("-- source: ").append(LuaWriter.string(sourceLabel)).append('\n');
        out.append("-- Runs on Wireshark 4.0 (Lua 5.2) and 4.4+ (Lua 5.4). Wire format: docs/wire-format.md.\n\n");
        out.append(params(hash));
        for (String name : RUNTIME_FILES) {
            if (name.equals(TABLES_FILE)) {
                out.append(BEGIN).append(tables).append(END);
            } else if (!name.equals(PARAMS_FILE)) {
                out.append(runtimeFile(name));
            }
        }
        return new Result(out.toString(), seen.size(), fields, fallbacks, hash,
                Collections.unmodifiableMap(abbreviations), List.of());
    }

    private record EventOut(String text, int fields, boolean fallback) {
    }

    private EventOut event(EventFormat f, FieldNames names, List<String> abbrevs) {
        EventDescription.Model m = EventDescription.model(f, layout.longSize(), enums, names, abbrevs);
        StringBuilder sb = new StringBuilder(512);
        sb.append("-- ").append(LuaWriter.string(f.fullName())).append('\n');
        if (m.print() == null) {
            sb.append("-- Info: name=value pairs, the print fmt is not reproduced: ")
                    .append(LuaWriter.string(m.reason())).append('\n');
        }
        LuaTable ev = m.event();
        if (m.print() != null) {
            ev.set("print", LuaValue.Lit.generated(m.compiler().function(m.print(), 2)));
        }
        sb.append("EV ").append(ev.render(0, 3, Map.of())).append('\n');
        return new EventOut(sb.toString(), m.fields(), m.print() == null);
    }

    /** The runtime's ProtoField type and base for a field: {@code {"u32","dec"}}, {@code {"str",""}}, … */
    static String[] protoType(Field f) {
        return EventDescription.protoType(f);
    }
}
