package org.tracewire.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
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
 * {@link Sources}: kallsyms, the host's tasks, building a message).
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

    private final Sources ctx;
    private final Out out;
    private final ByteOrder kernelOrder;
    private final KernelLayout layout;
    private final boolean fileNaming;
    private final ContextPlan[] plans = new ContextPlan[0x10000];
    /** Per CPU, the last task of a {@link ContextPlan#onlyCommonPid} event found described (-1: none). */
    private final int[] lastPid = new int[0x10000];
    private final ContextMessage captureMessage;
    private final Map<Integer, ContextMessage> formatMessages = new LinkedHashMap<>();
    private final LongSet symbolsLooked;
    private final LongSet stringsLooked;
    private final LongSet computedKeys;
    /** Symbol items sent, by lookup address (for repeats). */
    private final Map<Long, ContextMessage.Item> symbolItems = new LinkedHashMap<>();
    private final List<ContextMessage.Item> stringItems = new ArrayList<>();
    /** User stack addresses looked up ({@link #userKey}), the items sent for them (for repeats). */
    private final LongSet usersLooked;
    private final List<ContextMessage.Item> userItems = new ArrayList<>();
    /** (tgid, file name) whose build id was sent (SYMBOLS item 6), at most {@link #MAX_USER_OBJECTS}. */
    private final Set<String> userObjects = new HashSet<>();
    private static final int MAX_USER_OBJECTS = 65536;
    private final TaskTable tasks;
    private final Recorder recorder = new Recorder();
    /** {@link #before}'s messages (a planner made by {@link #forRecords}). */
    private final List<ContextMessage> collected = new ArrayList<>();
    private ContextMessage.Builder symbolBuilder;
    private ContextMessage.Builder taskBuilder;
    private long dropped;
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
        this.tasks = new TaskTable(maxTasks);
        this.symbolsLooked = new LongSet(maxSymbols);
        this.computedKeys = new LongSet(maxSymbols);
        this.stringsLooked = new LongSet(maxStrings);
        this.usersLooked = new LongSet(maxSymbols);
        this.ctx = ctx;
        this.out = out == null ? (m, cpu, time, lost, repeat) -> collected.add(m) : out;
        this.layout = ctx.layout();
        this.fileNaming = ctx.naming() == Naming.FILE;
        this.kernelOrder = layout.byteOrder();
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
        return dropped;
    }

    /** Tasks described so far. */
    public int tasks() {
        return tasks.size();
    }

    /** Symbol addresses described so far (found or not). */
    public int symbolCount() {
        return symbolItems.size();
    }

    /** Symbol, printk string and user stack items sent so far. */
    public long symbolItems() {
        return symbolItems.size() + stringItems.size() + userItems.size();
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
        List<ContextMessage.Item> items = new ArrayList<>(symbolItems.values());
        items.addAll(stringItems);
        items.addAll(userItems);
        for (int i = 0; i < items.size(); i += ITEMS_PER_MESSAGE) {
            out.send(new ContextMessage(FrameKind.SYMBOLS, items.subList(i, Math.min(items.size(), i + ITEMS_PER_MESSAGE))),
                    WireHeader.NO_CPU, timeNs, 0, true);
        }
        ContextMessage.Builder[] b = {ContextMessage.builder(FrameKind.PROCESS)};
        int[] n = {0};
        List<ContextMessage> procs = new ArrayList<>();
        tasks.forEach(slot -> {
            b[0].task(tasks.pid(slot), tasks.tgid(slot), tasks.comm(slot));
            if (++n[0] == ITEMS_PER_MESSAGE) {
                procs.add(b[0].build());
                b[0] = ContextMessage.builder(FrameKind.PROCESS);
                n[0] = 0;
            }
        });
        if (!b[0].isEmpty()) {
            procs.add(b[0].build());
        }
        for (ContextMessage m : procs) {
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
        tasks.forEach(slot -> action.accept(tasks.pid(slot), tasks.tgid(slot), tasks.comm(slot)));
    }

    private void send(ContextMessage m, int cpu, long timeNs, long lost, boolean repeatOnly) throws IOException {
        messages++;
        out.send(m, cpu, timeNs, lost, repeatOnly);
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
            if (off >= 0 && off + 4 <= length && pid(buf, payload + off) == lastPid[cpu & 0xffff]) {
                return;
            }
        }
        check(buf, payload, length, format, cpu, timeNs);
    }

    /** A task pid (4 bytes of the kernel's byte order) at an index of {@code buf}, whatever its order. */
    private int pid(ByteBuffer buf, int at) {
        int v = buf.getInt(at);
        return buf.order() == kernelOrder ? v : Integer.reverseBytes(v);
    }

    /** {@link #beforeEvent} past its fast path: a new event id, a new task, symbols, strings, exec. */
    private void check(ByteBuffer buf, int payload, int length, EventFormat format, int cpu, long timeNs)
            throws IOException {
        int id = format.id() & 0xffff;
        ContextPlan p = plans[id];
        if (p == null) {
            p = plan(format);
            plans[id] = p;
            sendFormat(format, timeNs);
        }
        if (p.onlyCommonPid && (!fileNaming || p.allPidOffsets.length == 1)) {
            // most events: only their task to check, usually the CPU's previous one
            int off = p.pidOffsets[0];
            if (off + 4 <= length) {
                int pid = pid(buf, payload + off);
                if (pid == lastPid[cpu & 0xffff]) {
                    return;
                }
                if (tasks.slot(pid) < 0) {
                    task(pid, -1, null, 0, 0, false);
                    sendTasks(timeNs);
                }
                if (tasks.slot(pid) >= 0) {
                    lastPid[cpu & 0xffff] = pid;
                }
            }
            return;
        }
        if (p.stackAt >= 0) {
            stackSymbols(buf, payload, length, p); // in place of its print fmt's caller[0..7]
        } else if (p.userStackAt >= 0) {
            if (ctx.userStacks() != null) {
                userStackSymbols(buf, payload, length, p); // user addresses: no kernel symbols
            }
        }
        // symbols: direct addresses
        for (int i = 0; p.stackAt < 0 && p.userStackAt < 0 && i < p.symOffsets.length; i++) {
            int off = p.symOffsets[i];
            if (off + p.symSizes[i] > length) {
                continue;
            }
            long v = read(buf, payload + off, p.symSizes[i]);
            if (v == 0) {
                continue;
            }
            long address = p.symBacktrace[i] ? v - 1 : v;
            if (!symbolsLooked.contains(address)) {
                symbol(address);
            }
        }
        if (p.computed.length > 0) {
            long key = id;
            boolean inside = true;
            for (int i = 0; i < p.computed.length; i++) {
                int off = p.computed[i];
                if (off + p.computedSizes[i] > length) {
                    inside = false;
                    break;
                }
                key = key * 0x9E3779B97F4A7C15L + read(buf, payload + off, p.computedSizes[i]);
                key ^= key >>> 29;
            }
            if (inside && !computedKeys.contains(key)) {
                computed(p, buf, payload, length, cpu, key);
            }
        }
        for (int i = 0; i < p.strOffsets.length; i++) {
            int off = p.strOffsets[i];
            if (off + p.strSizes[i] > length) {
                continue;
            }
            long v = read(buf, payload + off, p.strSizes[i]);
            if (v != 0 && !stringsLooked.contains(v)) {
                string(v);
            }
        }
        if (symbolBuilder != null) {
            ContextMessage m = symbolBuilder.build();
            symbolBuilder = null;
            send(m, WireHeader.NO_CPU, timeNs, 0, false);
        }
        names(p, buf, payload, length);
        sendTasks(timeNs);
    }

    /**
     * A record of an event the capture reads only to follow task names (fork, exec, rename): the
     * PROCESS context it implies is sent, nothing else (no FORMAT: it is not framed).
     */
    public void namingEvent(ByteBuffer buf, int payload, int length, EventFormat format, long timeNs) throws IOException {
        int id = format.id() & 0xffff;
        ContextPlan p = plans[id];
        if (p == null) {
            p = plan(format);
            plans[id] = p;
        }
        names(p, buf, payload, length);
        sendTasks(timeNs);
    }

    /** The tasks a record names: new ones, and known ones under another name (comm fields, exec). */
    private void names(ContextPlan p, ByteBuffer buf, int payload, int length) {
        if (ctx.naming() == Naming.FILE) {
            fileNames(p, buf, payload, length);
            return;
        }
        for (int i = 0; i < p.pidOffsets.length; i++) {
            int off = p.pidOffsets[i];
            if (off + 4 > length) {
                continue;
            }
            int pid = (int) read(buf, payload + off, 4);
            int slot = tasks.slot(pid);
            int commOff = p.commOffsets[i];
            if (commOff < -1) {
                int at = dataLoc(buf, payload, length, -commOff - 2);
                if (at < 0 || pid == 0) {
                    if (slot < 0) {
                        task(pid, -1, null, 0, 0, false);
                    }
                    continue;
                }
                // the name's first 16 bytes, NUL-padded, packed as a fixed comm field's getLong()s would be
                long r0 = 0;
                long r1 = 0;
                boolean little = buf.order() == ByteOrder.LITTLE_ENDIAN;
                for (int k = 0; k < 16 && at + k < length; k++) {
                    long b = buf.get(payload + at + k) & 0xffL;
                    if (b == 0) {
                        break;
                    }
                    int shift = little ? 8 * (k & 7) : 56 - 8 * (k & 7);
                    if (k < 8) {
                        r0 |= b << shift;
                    } else {
                        r1 |= b << shift;
                    }
                }
                if (slot >= 0 && tasks.sameRaw(slot, r0, r1)) {
                    continue;
                }
                task(pid, slot, comm(buf, payload + at, Math.min(16, length - at)), r0, r1, true);
                continue;
            }
            boolean hasComm = commOff >= 0 && commOff + 16 <= length;
            if (slot >= 0 && (!hasComm || pid == 0)) {
                continue;
            }
            long r0 = 0;
            long r1 = 0;
            if (hasComm) {
                r0 = buf.getLong(payload + commOff);
                r1 = buf.getLong(payload + commOff + 8);
                if (slot >= 0 && tasks.sameRaw(slot, r0, r1)) {
                    continue;
                }
            }
            task(pid, slot, hasComm ? comm(buf, payload + commOff, 16) : null, r0, r1, hasComm);
        }
        if (p.execPid >= 0 && p.execPid + 4 <= length) {
            exec((int) read(buf, payload + p.execPid, 4), buf, payload, length, p);
        }
    }

    /**
     * {@link Naming#FILE}: every task the record names ({@link TaskFields}, the recording task
     * first), each once, as the file's names say.
     */
    private void fileNames(ContextPlan p, ByteBuffer buf, int payload, int length) {
        for (int off : p.allPidOffsets) {
            if (off + 4 <= length) {
                int pid = (int) read(buf, payload + off, 4);
                if (tasks.slot(pid) < 0) {
                    task(pid, -1, null, 0, 0, false);
                }
            }
        }
    }

    /** The payload offset a {@code __data_loc} field at {@code locOff} points to, or -1 when out of bounds. */
    private int dataLoc(ByteBuffer buf, int payload, int length, int locOff) {
        if (locOff + 4 > length) {
            return -1;
        }
        long loc = read(buf, payload + locOff, 4);
        int at = (int) (loc & 0xffff);
        int len = (int) (loc >>> 16);
        return len == 0 || at + len > length ? -1 : at;
    }

    /**
     * A kernel stack's return addresses ({@link ContextPlan#stackAt}): the array runs to the record's end
     * and stops at {@code ULONG_MAX}, as the kernel's {@code trace_stack_print()} reads it; 0 is
     * printed as {@code 0}, not looked up.
     */
    private void stackSymbols(ByteBuffer buf, int payload, int length, ContextPlan p) {
        long end = p.stackStep == 8 ? -1L : 0xffff_ffffL;
        for (int off = p.stackAt; off + p.stackStep <= length; off += p.stackStep) {
            long v = read(buf, payload + off, p.stackStep);
            if (v == end) {
                break;
            }
            if (v != 0 && !symbolsLooked.contains(v)) {
                symbol(v);
            }
        }
    }

    /**
     * A user stack's addresses ({@link ContextPlan#userStackAt}), each (process, address) once: resolved now,
     * while the process lives, into its ELF files' functions ({@link UserStacks}), sent as SYMBOLS
     * items 4 (or 5: not resolved), each file's build id once per process before its first item 4
     * (item 6).
     */
    private void userStackSymbols(ByteBuffer buf, int payload, int length, ContextPlan p) {
        if (p.tgidAt + 4 > length) {
            return;
        }
        int tgid = (int) read(buf, payload + p.tgidAt, 4);
        int end = Math.min(length, p.userStackEnd);
        for (int off = p.userStackAt; off + p.userStep <= end; off += p.userStep) {
            long v = read(buf, payload + off, p.userStep);
            if (v == 0) {
                break;
            }
            long key = userKey(tgid, v);
            if (!usersLooked.contains(key)) {
                userSymbol(tgid, v, key);
            }
        }
    }

    /** A 64-bit mix of a process and an address (splitmix64's finalizer): the key of what was looked up. */
    public static long userKey(int tgid, long address) {
        long z = address + 0x9E3779B97F4A7C15L * (tgid + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void userSymbol(int tgid, long address, long key) {
        if (!usersLooked.add(key)) {
            dropped++;
            return;
        }
        UserSymbol s = ctx.userStacks().lookup(tgid, address);
        ContextMessage.Builder one = ContextMessage.builder(FrameKind.SYMBOLS);
        if (s == null) {
            one.userUnknown(tgid, address);
        } else {
            // the file's build id once per process and file name, before the first symbol naming it
            if (s.buildId() != null && userObjects.size() < MAX_USER_OBJECTS && userObjects.add(tgid + "\0" + s.file())) {
                one.userObject(tgid, s.buildId(), s.file());
            }
            one.userSymbol(tgid, address, s.start(), s.size(), s.name() + " [" + s.file() + "]");
        }
        for (ContextMessage.Item item : one.build().items()) {
            symbols().bytes(item.type(), item.value());
            userItems.add(item);
        }
    }

    private void sendTasks(long timeNs) throws IOException {
        if (taskBuilder != null) {
            ContextMessage m = taskBuilder.build();
            taskBuilder = null;
            send(m, WireHeader.NO_CPU, timeNs, 0, false);
        }
    }

    /** An unsigned integer of the kernel's byte order at an index of {@code buf} (whatever its order). */
    private long read(ByteBuffer buf, int at, int size) {
        boolean swap = buf.order() != kernelOrder;
        switch (size) {
            case 8 -> {
                long v = buf.getLong(at);
                return swap ? Long.reverseBytes(v) : v;
            }
            case 4 -> {
                int v = buf.getInt(at);
                return (swap ? Integer.reverseBytes(v) : v) & 0xffff_ffffL;
            }
            case 2 -> {
                short v = buf.getShort(at);
                return (swap ? Short.reverseBytes(v) : v) & 0xffff;
            }
            default -> {
                return buf.get(at) & 0xff;
            }
        }
    }

    /** A task name: up to {@code max} (at most 16) bytes at {@code at}, to the first NUL. */
    private static String comm(ByteBuffer buf, int at, int max) {
        byte[] b = new byte[16];
        int n = 0;
        while (n < max) {
            byte c = buf.get(at + n);
            if (c == 0) {
                break;
            }
            b[n++] = c;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ the slow paths

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

    private SymbolResolver resolver() {
        return ctx.symbols() == null ? null : ctx.symbols().get();
    }

    private void symbol(long address) {
        if (!symbolsLooked.add(address)) {
            dropped++;
            return;
        }
        SymbolResolver r = resolver();
        SymbolResolver.Symbol s = r == null ? null : r.lookup(address);
        ContextMessage.Builder b = symbols();
        if (s == null) {
            byte[] a = ByteBuffer.allocate(8).putLong(address).array();
            b.bytes(ContextMessage.SYMBOL_UNKNOWN, a);
            symbolItems.put(address, new ContextMessage.Item(ContextMessage.SYMBOL_UNKNOWN, a));
            return;
        }
        String name = s.module() == null ? s.name() : s.name() + " [" + s.module() + "]";
        ContextMessage.Builder one = ContextMessage.builder(FrameKind.SYMBOLS).symbol(address, s.start(), s.size(), name);
        ContextMessage.Item item = one.build().items().get(0);
        b.symbol(address, s.start(), s.size(), name);
        symbolItems.put(address, item);
    }

    private void string(long address) {
        if (!stringsLooked.add(address)) {
            dropped++;
            return;
        }
        String s = ctx.printk().lookup(address);
        if (s != null) {
            ContextMessage.Item item = ContextMessage.builder(FrameKind.SYMBOLS).printk(address, s).build().items().get(0);
            symbols().printk(address, s);
            stringItems.add(item);
        }
    }

    private ContextMessage.Builder symbols() {
        if (symbolBuilder == null) {
            symbolBuilder = ContextMessage.builder(FrameKind.SYMBOLS);
        }
        return symbolBuilder;
    }

    /** An address computed by the print fmt: render the record once, recording what it looks up. */
    private void computed(ContextPlan p, ByteBuffer buf, int payload, int length, int cpu, long key) {
        if (!computedKeys.add(key)) {
            dropped++;
            return;
        }
        byte[] copy = new byte[length];
        buf.get(payload, copy);
        EventRecord r = new EventRecord(p.format, layout, cpu, 0, ByteBuffer.wrap(copy).order(layout.byteOrder()));
        recorder.target = resolver();
        recorder.seen.clear();
        p.printer.render(r, new PrintContext(recorder, ctx.printk(), ctx.hz(),
                ctx.enums() == null ? null : ctx.enums().get(), ctx.variables()));
        for (long a : recorder.seen) {
            if (!symbolsLooked.contains(a)) {
                symbol(a);
            }
        }
    }

    /** A resolver that notes every address looked up. */
    private static final class Recorder implements SymbolResolver {
        SymbolResolver target;
        final List<Long> seen = new ArrayList<>();

        @Override
        public Symbol lookup(long address) {
            seen.add(address);
            return target == null ? null : target.lookup(address);
        }
    }

    private void task(int pid, int slot, String comm, long r0, long r1, boolean fromRecord) {
        String name = comm;
        int tgid;
        if (slot >= 0) {
            // a known task with another name in this record
            if (comm.equals(tasks.comm(slot))) {
                tasks.setRaw(slot, r0, r1);
                return;
            }
            tgid = tasks.tgid(slot);
        } else {
            boolean file = ctx.naming() == Naming.FILE;
            if (file && pid <= 0) {
                return; // the file's text names pid 0 itself
            }
            if (tasks.full()) {
                dropped++;
                return;
            }
            Task t = ctx.tasks().lookup(pid);
            if (file && t == null) {
                return; // unknown to the file: not described
            }
            tgid = t == null ? -1 : t.tgid();
            if (name == null) {
                name = t == null ? "<...>" : t.comm();
            }
            if (pid == 0) {
                name = "<idle>";
                tgid = 0;
            }
        }
        int s = tasks.put(pid, tgid, name);
        if (fromRecord && s >= 0) {
            tasks.setRaw(s, r0, r1);
        }
        processes().task(pid, tgid, name);
    }

    /** {@code sched_process_exec}: the task's name is now its new program's. */
    private void exec(int pid, ByteBuffer buf, int payload, int length, ContextPlan p) {
        // the kernel names the task after the file's last path component (begin_new_exec in
        // fs/exec.c): the record says it as of its time; /proc may already say a later name
        String name = null;
        Task t = null;
        if (p.execFile != null) {
            byte[] copy = new byte[length];
            buf.get(payload, copy);
            try {
                String file = new EventRecord(p.format, layout, -1, 0, ByteBuffer.wrap(copy).order(layout.byteOrder()))
                        .string(p.execFile);
                name = file.substring(file.lastIndexOf('/') + 1);
                if (name.getBytes(StandardCharsets.UTF_8).length > 15) {
                    name = new String(Arrays.copyOf(name.getBytes(StandardCharsets.UTF_8), 15),
                            StandardCharsets.UTF_8);
                }
                if (file.startsWith("/dev/fd/")) {
                    name = null; // fexecve: the kernel names it after the file's dentry, which the record lacks
                }
            } catch (RuntimeException e) {
                name = null;
            }
        }
        if (name == null) {
            t = ctx.tasks().running(pid); // no cache: a cached name may be the pid's former holder's
            name = t == null ? null : t.comm();
        }
        if (name == null) {
            return;
        }
        int slot = tasks.slot(pid);
        if (slot >= 0 && name.equals(tasks.comm(slot))) {
            return;
        }
        int tgid = t != null ? t.tgid() : pid; // after exec the task leads its thread group (de_thread)
        if (slot < 0 && tasks.full()) {
            dropped++;
            return;
        }
        int s = tasks.put(pid, tgid, name);
        if (s >= 0) {
            tasks.setRaw(s, 0, 0);
        }
        processes().task(pid, tgid, name);
    }

    private ContextMessage.Builder processes() {
        if (taskBuilder == null) {
            taskBuilder = ContextMessage.builder(FrameKind.PROCESS);
        }
        return taskBuilder;
    }

    private ContextPlan plan(EventFormat f) {
        return ContextPlan.of(f, layout);
    }
}
