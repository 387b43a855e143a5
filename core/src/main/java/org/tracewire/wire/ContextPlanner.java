package org.tracewire.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.format.TaskFields;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * The one planner of in-band context ({@code docs/wire-format.md} §4, §6 "on first sight"): decides,
 * in stream order, which context messages must go before each event frame, and sends them. A live
 * capture feeds it ring-buffer payloads ({@link #beforeEvent}), a file import ({@code import},
 * {@link RecordFrames}) decoded records ({@link #before}); both get the same messages from the
 * same plans. CAPTURE first ({@link #begin}); before an event, LOST when its CPU lost events,
 * FORMAT when its id is new, SYMBOLS for the code addresses its {@code %pS}-family arguments (and a
 * kernel stack record's return addresses; a user stack's, per process) carry and the
 * {@code printk_formats} strings its pointer {@code %s} arguments reference (each address once,
 * never the whole table), PROCESS for each task it names ({@link TaskFields}: the one rule) that is
 * not described yet or, live, whose name changed.
 *
 * <p>Per event id a <em>plan</em> ({@link ContextPlan}), made once from the format and its parsed print
 * fmt, lists where the task pids (with the comm field that names them, if any), symbol addresses and
 * string pointers sit in the payload; the hot path reads them and looks them up in primitive sets, so
 * an event whose context was sent allocates nothing. Only what is new takes the slow path (the
 * {@link Sources}: kallsyms, the host's tasks, building a message). The SYMBOLS side lives in
 * {@link SymbolLookups}, the PROCESS side in {@link TaskNames}; this class holds the plans, the hot
 * path, FORMAT and the order of the messages.
 *
 * <p>Memory is bounded: at most {@link #MAX_TASKS} tasks, {@link #MAX_SYMBOLS} symbol addresses and
 * {@link #MAX_STRINGS} string addresses are tracked; past a cap new ones are not described and are
 * counted in {@link #dropped()}. {@link #repeat} re-sends everything known so far (live interfaces,
 * every {@link #REPEAT_NS}). No I/O of its own: what it looks up comes through {@link Sources}.
 * Not thread-safe.
 */
public final class ContextPlanner {
    /** Most tasks described. */
    public static final int MAX_TASKS = 1 << 18;
    /** Most symbol addresses looked up. */
    public static final int MAX_SYMBOLS = 1 << 18;
    /** Most string addresses looked up. */
    public static final int MAX_STRINGS = 1 << 16;
    /** How often live interfaces get everything again, ns. */
    public static final long REPEAT_NS = 2_000_000_000L;
    /** Items per SYMBOLS / PROCESS message when re-sending. */
    public static final int ITEMS_PER_MESSAGE = 256;

    /** Where messages go. */
    public interface Out {
        /**
         * @param message    the message
         * @param cpu        the header cpu (a CPU for LOST, else {@link WireHeader#NO_CPU})
         * @param timeNs     the frames' time
         * @param lost       events lost before this message (LOST: its count, for the pcapng drop count), else 0
         * @param repeatOnly true for a periodic repeat: only outputs that repeat context (live interfaces) get it
         * @throws IOException when the output fails
         */
        void send(ContextMessage message, int cpu, long timeNs, long lost, boolean repeatOnly) throws IOException;
    }

    /**
     * A task as the writer's source names it.
     *
     * @param tgid its thread group id (the process id), -1 when unknown
     * @param comm its name (at most 15 bytes)
     */
    public record Task(int tgid, String comm) {
    }

    /** Where task names come from, besides the records themselves. */
    public interface Tasks {
        /** The task with this pid, or null when nothing names it. */
        Task lookup(int pid);

        /**
         * The task with this pid while it runs, or null: no cache of names that may be a former
         * holder's of the pid (what {@code sched_process_exec} asks). Default: {@link #lookup}.
         */
        default Task running(int pid) {
            return lookup(pid);
        }
    }

    /**
     * A function of a user-space object, as a process mapped it.
     *
     * @param name    the function's name
     * @param start   its start address in the process
     * @param size    its size, bytes
     * @param file    the object's path
     * @param buildId the object's GNU build id, or null
     */
    public record UserSymbol(String name, long start, long size, String file, byte[] buildId) {
    }

    /** Resolves user stack addresses while their process lives (a live capture reads {@code /proc}). */
    public interface UserStacks {
        /** The function at {@code address} in process {@code tgid}, or null when not resolved. */
        UserSymbol lookup(int tgid, long address);
    }

    /**
     * How tasks are named.
     * <ul>
     * <li>{@link #LIVE}: as the traced kernel names them at the time: a record's comm fields
     *     ({@code prev_comm}, {@code child_comm}, …) and {@code sched_process_exec}'s file first,
     *     else {@link Tasks}; a known task named otherwise by a later record is described again; an
     *     unknown task is described as {@code <...>}, pid 0 as {@code <idle>} (a live capture);</li>
     * <li>{@link #FILE}: only as the file's saved names ({@link Tasks}) say, each task once, unknown
     *     tasks and pid 0 not described: what {@code trace-cmd report} prints for the same file.</li>
     * </ul>
     */
    public enum Naming { LIVE, FILE }

    /**
     * What the writer knows about the traced kernel and host.
     *
     * @param capture      the CAPTURE message ({@link #begin}, {@link #repeat}); null when the caller sends it
     * @param layout       the traced kernel's byte order and long size
     * @param formatText   an event's {@code format} file text as tracefs gives it (null result: unreadable)
     * @param descriptions the dissector's description tree of an event (FORMAT item 4), or null for none
     * @param symbols      the kernel's symbols (called on first need; null or a null result: unknown)
     * @param printk       the kernel's {@code printk_formats}
     * @param enums        BTF enum constants (called on first need; null: none)
     * @param hz           {@code CONFIG_HZ}, 0 when unknown
     * @param variables    calibrated kernel variables and type sizes
     * @param tasks        pid → tgid and comm
     * @param userStacks   user stack resolution, or null (user addresses are sent unresolved)
     * @param naming       how tasks are named
     */
    public record Sources(ContextMessage capture, KernelLayout layout, Function<EventFormat, String> formatText,
                          Function<EventFormat, byte[]> descriptions, Supplier<SymbolResolver> symbols,
                          PrintkFormats printk, Supplier<KernelEnums> enums, int hz, KernelVariables variables,
                          Tasks tasks, UserStacks userStacks, Naming naming) {
        public Sources {
            Objects.requireNonNull(layout, "layout");
            Objects.requireNonNull(printk, "printk");
            Objects.requireNonNull(variables, "variables");
            Objects.requireNonNull(tasks, "tasks");
            Objects.requireNonNull(naming, "naming");
        }

        /**
         * What a file import knows ({@link Naming#FILE}): a trace.dat's context and saved cmdlines.
         *
         * @param layout     the traced kernel's byte order and long size
         * @param context    symbols, printk strings, HZ, enums, variables
         * @param cmdlines   task names by pid ({@code <...>} for unknown pids: those are not described)
         * @param tgids      pid → tgid, or null when unknown (then −1 is sent, §4.4)
         * @param formatText an event's {@code format} file text
         * @param descriptions the dissector's description tree of an event, or null for none
         * @return the sources
         */
        public static Sources ofFile(KernelLayout layout, PrintContext context, SavedCmdlines cmdlines,
                                     IntUnaryOperator tgids,
                                     Function<EventFormat, String> formatText,
                                     Function<EventFormat, byte[]> descriptions) {
            Tasks tasks = pid -> {
                String comm = cmdlines.comm(pid);
                return comm.equals(UNKNOWN) ? null : new Task(tgids == null ? -1 : tgids.applyAsInt(pid), comm);
            };
            return new Sources(null, layout, formatText, descriptions, context::symbols, context.printkFormats(),
                    context::enums, context.hz(), context.variables(), tasks, null, Naming.FILE);
        }
    }

    private static final String UNKNOWN = "<...>";

    private final Out out;
    private final boolean fileNaming;
    private final PayloadReads reads;
    private final ContextPlan[] plans = new ContextPlan[0x10000];
    /** Per CPU, the last task of a {@link ContextPlan#onlyCommonPid} event found described (-1: none). */
    private final int[] lastPid = new int[0x10000];
    private final ContextMessage captureMessage;
    private final Sources ctx;
    private final KernelLayout layout;
    private final Map<Integer, ContextMessage> formatMessages = new LinkedHashMap<>();
    private final SymbolLookups symbols;
    private final TaskNames names;
    /** {@link #before}'s messages (a planner made by {@link #forRecords}). */
    private final List<ContextMessage> collected = new ArrayList<>();
    private long messages;
    private long lastRepeat;

    /**
     * @param ctx what the writer knows
     * @param out where messages go
     */
    public ContextPlanner(Sources ctx, Out out) {
        this(ctx, out, MAX_TASKS, MAX_SYMBOLS, MAX_STRINGS);
    }

    /** With other caps (tests). */
    public ContextPlanner(Sources ctx, Out out, int maxTasks, int maxSymbols, int maxStrings) {
        this.reads = new PayloadReads(ctx.layout().byteOrder());
        this.ctx = ctx;
        this.layout = ctx.layout();
        this.symbols = new SymbolLookups(ctx, reads, maxSymbols, maxStrings);
        this.names = new TaskNames(ctx, reads, maxTasks);
        this.out = out == null ? (m, cpu, time, lost, repeat) -> collected.add(m) : out;
        this.fileNaming = ctx.naming() == Naming.FILE;
        this.captureMessage = ctx.capture();
        Arrays.fill(lastPid, -1);
    }

    /**
     * A planner whose messages {@link #before} returns (a file import: {@link RecordFrames} frames
     * them itself, CAPTURE and LOST included).
     */
    public static ContextPlanner forRecords(Sources ctx) {
        return new ContextPlanner(ctx, null);
    }

    /**
     * The context messages to send before this record's EVENT frame, in order: FORMAT, SYMBOLS,
     * PROCESS (each only when it has something new). For a planner made by {@link #forRecords}.
     * Never throws on a malformed record: what cannot be read is not described.
     *
     * @param r the record
     * @return the messages (a new list)
     */
    public List<ContextMessage> before(EventRecord r) {
        collected.clear();
        try {
            beforeEvent(r.payload(), 0, r.length(), r.format(), r.cpu(), r.timestampNs());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a planner of another Out
        }
        List<ContextMessage> m = List.copyOf(collected);
        collected.clear();
        return m;
    }

    /**
     * Sends CAPTURE ({@link Sources#capture}); call once, before any other frame.
     *
     * @param timeNs the frame's time
     * @throws IOException when {@link Out} fails
     */
    public void begin(long timeNs) throws IOException {
        Objects.requireNonNull(captureMessage, "no CAPTURE message in the sources");
        send(captureMessage, WireHeader.NO_CPU, timeNs, 0, false);
        lastRepeat = System.nanoTime();
    }

    /**
     * Sends a LOST message: {@code count} events lost on {@code cpu} (before its next event, or at the end).
     *
     * @throws IOException when {@link Out} fails
     */
    public void lost(int cpu, long count, long timeNs) throws IOException {
        send(ContextMessages.lost(count), cpu, timeNs, count, false);
    }

    /** Context messages sent (not counting repeats). */
    public long messages() {
        return messages;
    }

    /** Addresses and tasks not described because a cap was reached. */
    public long dropped() {
        return symbols.dropped() + names.dropped();
    }

    /** Tasks described so far. */
    public int tasks() {
        return names.size();
    }

    /** Symbol addresses described so far (found or not). */
    public int symbolCount() {
        return symbols.symbolCount();
    }

    /** Symbol, printk string and user stack items sent so far. */
    public long symbolItems() {
        return symbols.itemCount();
    }

    /** True when a repeat is due ({@link #REPEAT_NS} since the last). */
    public boolean repeatDue(long nowNanos) {
        return nowNanos - lastRepeat >= REPEAT_NS;
    }

    /**
     * Re-sends CAPTURE, every FORMAT, and the SYMBOLS and PROCESS known so far, to the outputs that
     * repeat context (§6: late joiners on live interfaces).
     *
     * @throws IOException when {@link Out} fails
     */
    public void repeat(long timeNs) throws IOException {
        Objects.requireNonNull(captureMessage, "no CAPTURE message in the sources");
        lastRepeat = System.nanoTime();
        out.send(captureMessage, WireHeader.NO_CPU, timeNs, 0, true);
        for (ContextMessage m : formatMessages.values()) {
            out.send(m, WireHeader.NO_CPU, timeNs, 0, true);
        }
        List<ContextMessage.Item> items = symbols.items();
        for (int i = 0; i < items.size(); i += ITEMS_PER_MESSAGE) {
            out.send(new ContextMessage(FrameKind.SYMBOLS, items.subList(i, Math.min(items.size(), i + ITEMS_PER_MESSAGE))),
                    WireHeader.NO_CPU, timeNs, 0, true);
        }
        for (ContextMessage m : names.all(ITEMS_PER_MESSAGE)) {
            out.send(m, WireHeader.NO_CPU, timeNs, 0, true);
        }
    }

    /** Receives a described task ({@link #forEachTask}). */
    public interface TaskAction {
        /** @param pid the pid @param tgid its tgid, -1 when unknown @param comm its name as sent */
        void accept(int pid, int tgid, String comm);
    }

    /**
     * Calls {@code action} with every task described so far, as last sent: what a fresh tracker for
     * the next file of a ring needs to name them as this one would.
     */
    public void forEachTask(TaskAction action) {
        names.forEach(action);
    }

    private void send(ContextMessage m, int cpu, long timeNs, long lost, boolean repeatOnly) throws IOException {
        messages++;
        out.send(m, cpu, timeNs, lost, repeatOnly);
    }

    /** Sends {@code m} as a context frame of no CPU unless it is null (nothing new). */
    private void sendIfAny(ContextMessage m, long timeNs) throws IOException {
        if (m != null) {
            send(m, WireHeader.NO_CPU, timeNs, 0, false);
        }
    }

    // ------------------------------------------------------------------ the hot path

    /**
     * Sends what the event at {@code payload} in {@code buf} needs and was not sent yet. Reads the
     * buffer with absolute gets only (its position and limit are not changed).
     *
     * <p>This is the per-event call, kept small so the JIT inlines it into the emitter: the common
     * case, an event with only its {@code common_pid} to check whose task is its CPU's previous
     * one, returns here; everything else goes to {@link #check}.
     *
     * @param buf     holds the payload (any byte order: the kernel's is applied here)
     * @param payload the payload's index in {@code buf}
     * @param length  the payload's length
     * @param format  the event's format
     * @param cpu     its CPU
     * @param timeNs  its time (the context frames get it too, so a file stays in time order)
     * @throws IOException when {@link Out} fails
     */
    public void beforeEvent(ByteBuffer buf, int payload, int length, EventFormat format, int cpu, long timeNs)
            throws IOException {
        ContextPlan p = plans[format.id() & 0xffff];
        if (p != null) {
            int off = p.onlyPidAt;
            if (fileNaming && p.allPidOffsets.length > 1) {
                off = -1; // a file names the task fields without a name too
            }
            if (off >= 0 && off + 4 <= length && reads.pid(buf, payload + off) == lastPid[cpu & 0xffff]) {
                return;
            }
        }
        check(buf, payload, length, format, cpu, timeNs);
    }

    /** {@link #beforeEvent} past its fast path: a new event id, a new task, symbols, strings, exec. */
    private void check(ByteBuffer buf, int payload, int length, EventFormat format, int cpu, long timeNs)
            throws IOException {
        int id = format.id() & 0xffff;
        ContextPlan p = plans[id];
        if (p == null) {
            p = ContextPlan.of(format, layout);
            plans[id] = p;
            sendFormat(format, timeNs);
        }
        if (p.onlyCommonPid && (!fileNaming || p.allPidOffsets.length == 1)) {
            // most events: only their task to check, usually the CPU's previous one
            int off = p.pidOffsets[0];
            if (off + 4 <= length) {
                int pid = reads.pid(buf, payload + off);
                if (pid == lastPid[cpu & 0xffff]) {
                    return;
                }
                if (!names.known(pid)) {
                    names.ensure(pid);
                    sendIfAny(names.take(), timeNs);
                }
                if (names.known(pid)) {
                    lastPid[cpu & 0xffff] = pid;
                }
            }
            return;
        }
        symbols.look(p, buf, payload, length, id, cpu);
        sendIfAny(symbols.take(), timeNs);
        names.names(p, buf, payload, length);
        sendIfAny(names.take(), timeNs);
    }

    /**
     * A record of an event the capture reads only to follow task names (fork, exec, rename): the
     * PROCESS context it implies is sent, nothing else (no FORMAT: it is not framed).
     */
    public void namingEvent(ByteBuffer buf, int payload, int length, EventFormat format, long timeNs) throws IOException {
        int id = format.id() & 0xffff;
        ContextPlan p = plans[id];
        if (p == null) {
            p = ContextPlan.of(format, layout);
            plans[id] = p;
        }
        names.names(p, buf, payload, length);
        sendIfAny(names.take(), timeNs);
    }

    /** Sends FORMAT for a new event id: its format text, description tree and the enum constants it uses. */
    private void sendFormat(EventFormat f, long timeNs) throws IOException {
        String text = ctx.formatText() == null ? null : ctx.formatText().apply(f);
        byte[] description = null;
        if (ctx.descriptions() != null) {
            try {
                description = ctx.descriptions().apply(f);
            } catch (RuntimeException e) {
                description = null; // the receiver decodes it from the format text alone
            }
        }
        Map<String, Long> enums = new TreeMap<>();
        Set<String> idents = ContextPlan.identifiers(f);
        if (!idents.isEmpty()) {
            KernelEnums known = ctx.enums() == null ? KernelEnums.empty() : ctx.enums().get();
            for (String name : idents) {
                Long v = known.value(name);
                if (v != null) {
                    enums.put(name, v);
                }
            }
        }
        ContextMessage m = ContextMessages.format(f, text == null ? "" : text, description, enums);
        formatMessages.put(f.id(), m);
        send(m, WireHeader.NO_CPU, timeNs, 0, false);
    }

    /** A 64-bit mix of a process and an address (splitmix64's finalizer): the key of what was looked up. */
    public static long userKey(int tgid, long address) {
        long z = address + 0x9E3779B97F4A7C15L * (tgid + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
