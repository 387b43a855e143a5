package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatException;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.symbols.UserSymbolResolver;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * What the context messages of one scope said ({@code docs/wire-format.md} §4): the capture, the
 * formats by event id, symbols, printk strings, tasks and lost counts; and from them what a reader
 * needs to decode and print the events: {@link #catalog()}, {@link #layout()},
 * {@link #printContext()}, {@link #cmdlines()}. Feed it every context message in file order with
 * {@link #apply}; a CAPTURE message with another capture id starts afresh. Bad content (a format
 * that does not parse, a short item) is recorded in {@link #problems()} and skipped; nothing throws.
 * Memory is bounded by {@link #MAX_ENTRIES} entries per table and {@link #MAX_PROBLEMS} problems.
 *
 * <p>{@link #printContext()} and {@link #cmdlines()} are views: symbols, printk strings and tasks
 * applied later are seen by them, so a reader of a live stream keeps one renderer; what they copy
 * (HZ, enums, kernel variables, the layout) changes only with CAPTURE and FORMAT messages, which
 * bump {@link #generation()}. Not thread-safe (views included).
 */
public final class WireContext {
    /** Most formats, symbols, printk strings or tasks kept (per table). */
    public static final int MAX_ENTRIES = 1 << 20;
    /** Most problems kept (later ones are counted only). */
    public static final int MAX_PROBLEMS = 1000;

    private String captureId;
    private final Map<Integer, ContextMessage.Item> captureItems = new HashMap<>();
    private final Map<Integer, EventFormat> formats = new LinkedHashMap<>();
    /** {@link #formats} again, indexed by id below {@value #DIRECT_IDS} (no boxed key per event looked up). */
    private EventFormat[] formatsById = new EventFormat[0];
    private static final int DIRECT_IDS = 1 << 16;
    private final Map<Integer, String> formatTexts = new HashMap<>();
    private final Map<String, FormatException> failures = new LinkedHashMap<>();
    private final Map<String, Long> enums = new HashMap<>();
    private final Map<Long, SymbolResolver.Symbol> symbols = new HashMap<>();
    /** User symbols (SYMBOLS item 4) by process and address. */
    private final Map<UserKey, SymbolResolver.Symbol> userSymbols = new HashMap<>();

    private record UserKey(int tgid, long address) {
    }

    /** Build ids (SYMBOLS item 6, lowercase hex) by process and file name. */
    private final Map<UserObject, String> buildIds = new HashMap<>();

    private record UserObject(int tgid, String file) {
    }
    private final Map<Long, String> printk = new HashMap<>();
    private final Map<Integer, Task> tasks = new HashMap<>();
    private final Map<Integer, String> comms = new HashMap<>();
    private final Map<Integer, Long> lost = new HashMap<>();
    private final List<String> problems = new ArrayList<>();
    private long problemCount;
    private int generation;

    /**
     * A task as PROCESS context describes it.
     *
     * @param pid  the task's pid
     * @param tgid its thread group (process) id
     * @param comm its name (≤ 16 bytes)
     */
    public record Task(int pid, int tgid, String comm) {
    }

    /**
     * Applies one message.
     *
     * @param cpu the header cpu of its frames (used by LOST)
     * @return true when it was the CAPTURE message of another capture than the one described so far
     *         (everything before was forgotten; the reader forgets that scope's fragments still in
     *         reassembly too, as the new capture numbers its messages afresh)
     */
    public boolean apply(ContextMessage m, int cpu) {
        try {
            switch (m.kind()) {
                case CAPTURE -> {
                    return capture(m);
                }
                case FORMAT -> format(m);
                case SYMBOLS -> symbols(m);
                case PROCESS -> processes(m);
                case LOST -> {
                    ContextMessage.Item i = m.first(ContextMessage.LOST_EVENTS);
                    if (i != null) {
                        lost.merge(cpu, i.number(), Long::sum);
                    }
                }
                default -> {
                }
            }
        } catch (RuntimeException e) {
            problem(m.kind() + " message: " + e.getMessage());
        }
        return false;
    }

    private void problem(String text) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(text);
        }
    }

    private boolean capture(ContextMessage m) {
        String id = m.text(ContextMessage.CAPTURE_ID);
        boolean another = captureId != null && id != null && !id.equals(captureId);
        if (another) {
            captureItems.clear();
            formats.clear();
            formatsById = new EventFormat[0];
            formatTexts.clear();
            failures.clear();
            enums.clear();
            symbols.clear();
            userSymbols.clear();
            buildIds.clear();
            printk.clear();
            tasks.clear();
            comms.clear();
        }
        generation++;
        captureId = id;
        for (ContextMessage.Item i : m.items()) {
            captureItems.put(i.type(), i);
        }
        return another;
    }

    private void format(ContextMessage m) {
        String name = m.text(ContextMessage.FORMAT_NAME);
        String text = m.text(ContextMessage.FORMAT_TEXT);
        ContextMessage.Item idItem = m.first(ContextMessage.FORMAT_ID);
        if (name == null || text == null || idItem == null) {
            problem("FORMAT message without id, name or text");
            return;
        }
        generation++;
        int colon = name.indexOf(':');
        String system = colon > 0 ? name.substring(0, colon) : "unknown";
        try {
            EventFormat f = FormatParser.parse(system, text, "FORMAT context of " + name);
            String bad = commonFieldsProblem(f);
            if (bad != null) {
                problem("FORMAT " + name + ": " + bad + " (not the kernel's struct trace_entry): format not used");
                return;
            }
            if (f.id() != (int) idItem.number()) {
                problem("FORMAT " + name + ": id item " + idItem.number() + " but the format says " + f.id());
            }
            if (formats.size() < MAX_ENTRIES || formats.containsKey(f.id())) {
                formats.put(f.id(), f);
                if (f.id() >= 0 && f.id() < DIRECT_IDS) {
                    if (f.id() >= formatsById.length) {
                        formatsById = Arrays.copyOf(formatsById, Math.min(DIRECT_IDS, Math.max(f.id() + 1, 2 * formatsById.length)));
                    }
                    formatsById[f.id()] = f;
                }
                formatTexts.put(f.id(), text);
                failures.remove(name);
            }
        } catch (FormatException e) {
            if (failures.size() < MAX_ENTRIES) {
                failures.put(name, e);
            }
            problem(e.getMessage());
        }
        String e = m.text(ContextMessage.FORMAT_ENUMS);
        if (e != null) {
            for (String line : e.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0 && enums.size() < MAX_ENTRIES) {
                    Long v = number(line.substring(eq + 1).trim());
                    if (v != null) {
                        enums.put(line.substring(0, eq).trim(), v);
                    }
                }
            }
        }
    }

    /** Why the common fields are not {@code common_type} u16 @0, flags u8 @2, preempt count u8 @3, pid s32 @4 (§3); null when they are. */
    private static String commonFieldsProblem(EventFormat f) {
        String[] names = {"common_type", "common_flags", "common_preempt_count", "common_pid"};
        int[] offsets = {0, 2, 3, 4};
        int[] sizes = {2, 1, 1, 4};
        for (int i = 0; i < names.length; i++) {
            Field c = f.field(names[i]);
            if (c == null || c.offset() != offsets[i] || c.size() != sizes[i]) {
                return names[i] + (c == null ? " missing" : " at " + c.offset() + " size " + c.size());
            }
        }
        return null;
    }

    private void symbols(ContextMessage m) {
        for (ContextMessage.Item i : m.items()) {
            ByteBuffer b = i.buffer();
            if (i.type() == ContextMessage.SYMBOL && i.value().length >= 20 && symbols.size() < MAX_ENTRIES) {
                symbols.put(b.getLong(0), symbol(i.value(), 8));
            } else if (i.type() == ContextMessage.USER_SYMBOL && i.value().length >= 24
                    && userSymbols.size() < MAX_ENTRIES) {
                userSymbols.put(new UserKey(b.getInt(0), b.getLong(4)), symbol(i.value(), 12));
            } else if (i.type() == ContextMessage.USER_OBJECT && i.value().length >= 5 && (i.value()[4] & 0xff) > 0
                    && i.value().length >= 5 + (i.value()[4] & 0xff) && buildIds.size() < MAX_ENTRIES) {
                int n = i.value()[4] & 0xff;
                buildIds.put(new UserObject(b.getInt(0), new String(i.value(), 5 + n, i.value().length - 5 - n,
                        StandardCharsets.UTF_8)), HexFormat.of().formatHex(i.value(), 5, 5 + n));
            } else if (i.type() == ContextMessage.SYMBOL_PRINTK && i.value().length >= 8 && printk.size() < MAX_ENTRIES) {
                printk.put(b.getLong(0), new String(i.value(), 8, i.value().length - 8, StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * A SYMBOLS item's symbol from {@code at}: u64 start, u32 size, then {@code name [module]} to the
     * end (items 1 and 4; the module of item 4 is the mapped file).
     */
    private static SymbolResolver.Symbol symbol(byte[] value, int at) {
        ByteBuffer b = ByteBuffer.wrap(value);
        String name = new String(value, at + 12, value.length - at - 12, StandardCharsets.UTF_8);
        String module = null;
        int sp = name.indexOf(" [");
        if (sp > 0 && name.endsWith("]")) {
            module = name.substring(sp + 2, name.length() - 1);
            name = name.substring(0, sp);
        }
        return new SymbolResolver.Symbol(name, b.getLong(at), b.getInt(at + 8) & 0xffff_ffffL, module);
    }

    private void processes(ContextMessage m) {
        for (ContextMessage.Item i : m.all(ContextMessage.PROCESS_TASK)) {
            if (i.value().length >= 8 && (tasks.size() < MAX_ENTRIES || tasks.containsKey(i.buffer().getInt(0)))) {
                ByteBuffer b = i.buffer();
                String comm = new String(i.value(), 8, i.value().length - 8, StandardCharsets.UTF_8);
                tasks.put(b.getInt(0), new Task(b.getInt(0), b.getInt(4), comm));
                comms.put(b.getInt(0), comm);
            }
        }
    }

    private static Long number(String s) {
        try {
            return s.startsWith("0x") || s.startsWith("0X") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** True once a CAPTURE message was applied. */
    public boolean hasCapture() {
        return captureId != null;
    }

    /** A CAPTURE item as text, or null. */
    public String captureText(int type) {
        ContextMessage.Item i = captureItems.get(type);
        return i == null ? null : i.text();
    }

    /** A CAPTURE item as a number, or {@code fallback} when absent or malformed. */
    public long captureNumber(int type, long fallback) {
        ContextMessage.Item i = captureItems.get(type);
        try {
            return i == null ? fallback : i.number();
        } catch (RuntimeException e) {
            return fallback;
        }
    }

    /** The traced kernel's byte order and long size (CAPTURE items 9 and 8; little-endian, 8 when absent). */
    public KernelLayout layout() {
        int longSize = (int) captureNumber(ContextMessage.CAPTURE_LONG_SIZE, 8);
        ByteOrder order = captureNumber(ContextMessage.CAPTURE_BYTE_ORDER, 1) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        return new KernelLayout(order, longSize == 4 ? 4 : 8);
    }

    /** The format of an event id, or null when no FORMAT message described it. */
    public EventFormat format(int id) {
        return id >= 0 && id < formatsById.length ? formatsById[id] : id < 0 || id >= DIRECT_IDS ? formats.get(id) : null;
    }

    /** The {@code format} file text of an event id as its FORMAT message carried it, or null. */
    public String formatText(int id) {
        return formatTexts.get(id);
    }

    /** The trace clock's name (CAPTURE item 5), {@code local} when absent. */
    public String clock() {
        String c = captureText(ContextMessage.CAPTURE_CLOCK);
        return c == null || c.isEmpty() ? "local" : c;
    }

    /** The clock offset (CAPTURE item 6): epoch ns = trace-clock ns + this; 0 when absent. */
    public long clockOffset() {
        return captureNumber(ContextMessage.CAPTURE_CLOCK_OFFSET, 0);
    }

    /**
     * A number that changes whenever a CAPTURE or FORMAT message is applied: what the views of
     * {@link #printContext()} do not follow (HZ, enums, variables, layout, formats).
     */
    public int generation() {
        return generation;
    }

    /** The formats described so far, and those that failed to parse. */
    public FormatCatalog catalog() {
        return new FormatCatalog(new ArrayList<>(formats.values()), failures);
    }

    /** The constants of CAPTURE item 12 as a map (name → value; {@code HZ} included). */
    public Map<String, Long> constants() {
        Map<String, Long> r = new LinkedHashMap<>();
        String text = captureText(ContextMessage.CAPTURE_CONSTANTS);
        if (text != null) {
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    Long v = number(line.substring(eq + 1).trim());
                    if (v != null) {
                        r.put(line.substring(0, eq).trim(), v);
                    }
                }
            }
        }
        return r;
    }

    /**
     * What rendering needs: symbols and printk strings (views: later SYMBOLS messages are seen), HZ,
     * enums and kernel variables as the context says now.
     */
    public PrintContext printContext() {
        Map<String, Long> values = new HashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        int hz = 0;
        for (Map.Entry<String, Long> e : constants().entrySet()) {
            String k = e.getKey();
            if (k.equals("HZ")) {
                hz = e.getValue().intValue();
            } else if (k.startsWith("sizeof(") && k.endsWith(")")) {
                sizes.put(k.substring(7, k.length() - 1), e.getValue().intValue());
            } else {
                values.put(k, e.getValue());
            }
        }
        Map<Long, SymbolResolver.Symbol> syms = symbols;
        SymbolResolver resolver = syms::get;
        return new PrintContext(resolver, PrintkFormats.view(printk), hz, new KernelEnums(Map.copyOf(enums)),
                new KernelVariables(values, sizes));
    }

    /**
     * The user-space symbols described so far (SYMBOLS items 4) and their files' build ids (items 6),
     * as a view: later messages are seen.
     */
    public UserSymbolResolver userSymbols() {
        Map<UserKey, SymbolResolver.Symbol> m = userSymbols;
        Map<UserObject, String> ids = buildIds;
        return new UserSymbolResolver() {
            @Override
            public SymbolResolver.Symbol lookup(int tgid, long address) {
                return m.get(new UserKey(tgid, address));
            }

            @Override
            public String buildId(int tgid, String file) {
                return file == null ? null : ids.get(new UserObject(tgid, file));
            }
        };
    }

    /** The tasks described so far, by pid. */
    public Map<Integer, Task> tasks() {
        return Map.copyOf(tasks);
    }

    /** Task names by pid, as the kernel's {@code saved_cmdlines} would give them (a view: later PROCESS messages are seen). */
    public SavedCmdlines cmdlines() {
        return SavedCmdlines.view(comms);
    }

    /** The symbols described so far, by the address they were described for (a copy). */
    public Map<Long, SymbolResolver.Symbol> symbols() {
        return Map.copyOf(symbols);
    }

    /** The printk strings described so far, by address (a copy). */
    public Map<Long, String> printkStrings() {
        return Map.copyOf(printk);
    }

    /** Lost events per CPU, summed over the LOST messages applied. */
    public Map<Integer, Long> lost() {
        return Map.copyOf(lost);
    }

    /** What could not be used (formats that did not parse, malformed items), in order; the first {@link #MAX_PROBLEMS}. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** How many problems there were in all (also those beyond {@link #MAX_PROBLEMS}). */
    public long problemCount() {
        return problemCount;
    }
}
