package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.format.EventFormat;
import org.tracewire.format.TaskFields;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * What a writer of tracewire frames sends before each EVENT frame so the stream describes itself
 * ({@code docs/wire-format.md} §4.2–4.4, §6 "on first sight"), worked out from what the writer knows
 * about the traced kernel (a trace.dat's formats, kallsyms, printk formats and saved cmdlines; or a
 * live kernel's): the FORMAT of an event id not described yet (with the BTF enum constants its print
 * fmt names), SYMBOLS for the code addresses and printk strings its text needs (found by rendering
 * the record with a context that notes every lookup, so exactly what the kernel's text uses), and
 * PROCESS for its task ({@code common_pid}) and the tasks its fields name ({@code next_pid},
 * {@code child_pid}, …) when the writer knows their names. Each address, string and task is sent
 * once. Not thread-safe.
 */
public final class FirstSight {
    private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final PrintContext source;
    private final SavedCmdlines tasks;
    private final IntUnaryOperator tgids;
    private final Function<EventFormat, String> formatText;
    private final Function<EventFormat, byte[]> description;
    private final KernelTextRenderer renderer;
    private final Set<Long> seenAddresses = new LinkedHashSet<>();
    private final Set<Long> seenStrings = new HashSet<>();
    private final Set<Integer> described = new HashSet<>();
    private final Set<Integer> formats = new HashSet<>();
    /** Per event id, the fields naming a task ({@link TaskFields}, the rule capture uses too). */
    private final Map<Integer, List<TaskFields.TaskField>> taskFields = new HashMap<>();
    private final List<Long> newAddresses = new ArrayList<>();
    private final List<Long> newStrings = new ArrayList<>();
    private long symbolItems;
    private long taskItems;

    /**
     * @param layout      the traced kernel's byte order and long size
     * @param source      what the writer knows: symbols, printk strings, HZ, enums, variables
     * @param tasks       task names by pid ({@code <...>} for unknown pids: those are not described)
     * @param tgids       pid → tgid, or null when unknown (then −1 is sent, §4.4)
     * @param formatText  an event's {@code format} file text, as tracefs gives it
     * @param description the dissector's description tree of an event (FORMAT item 4), or null for none
     */
    public FirstSight(KernelLayout layout, PrintContext source, SavedCmdlines tasks, IntUnaryOperator tgids,
                      Function<EventFormat, String> formatText, Function<EventFormat, byte[]> description) {
        this.source = source;
        this.tasks = tasks;
        this.tgids = tgids;
        this.formatText = formatText;
        this.description = description;
        SymbolResolver base = source.symbols();
        SymbolResolver noting = address -> {
            if (seenAddresses.add(address)) {
                newAddresses.add(address);
            }
            return base == null ? null : base.lookup(address);
        };
        Map<Long, String> strings = new AbstractMap<>() {
            @Override
            public String get(Object key) {
                String s = source.printkFormats().lookup((Long) key);
                if (s != null && seenStrings.add((Long) key)) {
                    newStrings.add((Long) key);
                }
                return s;
            }

            @Override
            public Set<Entry<Long, String>> entrySet() {
                return Set.of();
            }
        };
        PrintContext noted = new PrintContext(noting, PrintkFormats.view(strings), source.hz(), source.enums(),
                source.variables());
        this.renderer = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), "local"), layout, noted);
    }

    /**
     * The context messages to send before this record's EVENT frame, in order: FORMAT, SYMBOLS,
     * PROCESS (each only when it has something new). Never throws on a malformed record: what cannot
     * be read is not described.
     */
    public List<ContextMessage> before(EventRecord r) {
        List<ContextMessage> out = new ArrayList<>(2);
        EventFormat f = r.format();
        if (formats.add(f.id())) {
            out.add(ContextMessages.format(f, formatText.apply(f), description == null ? null : description.apply(f),
                    enums(f)));
        }
        newAddresses.clear();
        newStrings.clear();
        try {
            renderer.body(r);
        } catch (RuntimeException ignored) {
            // a record the printer cannot read: its addresses stay undescribed
        }
        if (!newAddresses.isEmpty() || !newStrings.isEmpty()) {
            ContextMessage.Builder b = ContextMessage.builder(FrameKind.SYMBOLS);
            SymbolResolver symbols = source.symbols();
            for (long a : newAddresses) {
                SymbolResolver.Symbol s = symbols == null ? null : symbols.lookup(a);
                if (s != null) {
                    b.symbol(a, s.start(), s.size(), s.module() == null ? s.name() : s.name() + " [" + s.module() + "]");
                } else {
                    b.bytes(ContextMessage.SYMBOL_UNKNOWN, ByteBuffer.allocate(8).putLong(a).array());
                }
                symbolItems++;
            }
            for (long a : newStrings) {
                b.printk(a, source.printkFormats().lookup(a));
                symbolItems++;
            }
            out.add(b.build());
        }
        ContextMessage.Builder p = ContextMessage.builder(FrameKind.PROCESS);
        task(p, r.pid());
        for (TaskFields.TaskField t : taskFields.computeIfAbsent(f.id(), k -> TaskFields.of(f))) {
            try {
                task(p, (int) r.integer(t.pid()));
            } catch (RuntimeException ignored) {
                // a field outside a cut record
            }
        }
        if (!p.isEmpty()) {
            out.add(p.build());
        }
        return out;
    }

    private void task(ContextMessage.Builder b, int pid) {
        if (pid <= 0 || described.contains(pid)) {
            return;
        }
        String comm = tasks.comm(pid);
        if (comm.equals("<...>")) {
            return;
        }
        described.add(pid);
        b.task(pid, tgids == null ? -1 : tgids.applyAsInt(pid), comm);
        taskItems++;
    }

    private Map<String, Long> enums(EventFormat f) {
        Map<String, Long> r = new HashMap<>();
        Matcher m = IDENT.matcher(f.printFmt());
        while (m.find()) {
            Long v = source.enums().value(m.group());
            if (v != null) {
                r.put(m.group(), v);
            }
        }
        return r;
    }

    /** Symbol and printk items sent so far. */
    public long symbolItems() {
        return symbolItems;
    }

    /** Tasks described so far. */
    public long taskItems() {
        return taskItems;
    }
}
