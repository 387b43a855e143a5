package org.tracewire.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.SyscallEvents;
import org.tracewire.record.EventRecord;

/**
 * Pairs start and end records into {@link LatencyPair}s, incrementally: feed records in time order
 * ({@link #feed(long, EventRecord)}), each call returns the pair the record completes, if any. The
 * one place tracewire computes these latencies:
 * <ul>
 * <li>scheduling latency: {@code sched:sched_wakeup} / {@code sched:sched_wakeup_new} of {@code pid}
 *     → the next {@code sched:sched_switch} with {@code next_pid == pid} on any CPU (the first wakeup
 *     of a pending task is kept);</li>
 * <li>syscall duration per task ({@code common_pid}): {@code raw_syscalls:sys_enter} →
 *     {@code raw_syscalls:sys_exit} with the same {@code id}, and {@code syscalls:sys_enter_X} →
 *     {@code syscalls:sys_exit_X} (kept apart, so enabling both gives two pairs per call);</li>
 * <li>{@code irq:irq_handler_entry} → {@code irq:irq_handler_exit} per CPU and {@code irq};
 *     {@code irq:softirq_entry} → {@code irq:softirq_exit} per CPU and {@code vec}.</li>
 * </ul>
 * Other records are counted and otherwise ignored. Memory is bounded: at most {@code maxPending}
 * starts wait for their end; past that the oldest is dropped and counted ({@link LatencyStats#evicted}).
 * Events are recognised by system and name, so formats of any kernel work; a record whose format
 * lacks an expected field is ignored.
 *
 * <p>Not thread-safe: one feeding thread (e.g. the app's record consumer).
 */
public final class LatencyTracker {
    /** The pending cap {@link #LatencyTracker()} uses. */
    public static final int DEFAULT_MAX_PENDING = 65_536;

    /** Softirq vector names, as {@code softirq_to_name} in {@code kernel/softirq.c}. */
    private static final String[] SOFTIRQ_NAMES = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
        "SCHED", "HRTIMER", "RCU"};

    private enum Role { WAKEUP, SWITCH, RAW_ENTER, RAW_EXIT, SYS_ENTER, SYS_EXIT, IRQ_ENTRY, IRQ_EXIT, SOFTIRQ_ENTRY,
        SOFTIRQ_EXIT, OTHER }

    /** A format's role and its resolved fields (a, b: the role's fields; see {@link #handler}). */
    private record Handler(Role role, Field a, Field b, Field c, String name) {
    }

    /** What a pending start is waiting under: kind discriminator + two numbers. */
    private record Key(int space, long x, long y) {
    }

    private record Pending(RecordRef start, Role role, int pid, String comm, int waker, int cpu, long id, String name) {
    }

    private static final int SPACE_WAKEUP = 0;
    private static final int SPACE_RAW = 1;
    private static final int SPACE_SYS = 2;
    private static final int SPACE_IRQ = 3;
    private static final int SPACE_SOFTIRQ = 4;

    private final int maxPending;
    private final Map<EventFormat, Handler> handlers = new IdentityHashMap<>();
    private final LinkedHashMap<Key, Pending> pending = new LinkedHashMap<>();
    private long sequence;
    private long latest = Long.MIN_VALUE;
    private long records;
    private long pairs;
    private long evicted;
    private long replacedStarts;
    private long repeatedWakeups;
    private long unmatchedEnds;
    private long outOfOrder;
    private long negative;

    /** A tracker holding at most {@link #DEFAULT_MAX_PENDING} pending starts. */
    public LatencyTracker() {
        this(DEFAULT_MAX_PENDING);
    }

    /**
     * @param maxPending most starts kept waiting for their end (≥ 1)
     * @throws IllegalArgumentException when {@code maxPending < 1}
     */
    public LatencyTracker(int maxPending) {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, not " + maxPending);
        }
        this.maxPending = maxPending;
    }

    /**
     * Pairs a whole list: records in any order are sorted by time stamp (stable), fed with their
     * index in {@code records} as the sequence, with the default cap.
     *
     * @return the pairs in order of their end records
     */
    public static List<LatencyPair> pairAll(List<EventRecord> records) {
        return pairAll(records, DEFAULT_MAX_PENDING);
    }

    /**
     * As {@link #pairAll(List)} with a pending cap.
     *
     * @throws IllegalArgumentException when {@code maxPending < 1}
     */
    public static List<LatencyPair> pairAll(List<EventRecord> records, int maxPending) {
        LatencyTracker t = new LatencyTracker(maxPending);
        Integer[] order = new Integer[records.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> records.get(i).timestampNs()));
        List<LatencyPair> out = new ArrayList<>();
        for (int i : order) {
            t.feed(i, records.get(i)).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Feeds the next record with the next sequence number (0, 1, 2, … counted by this tracker).
     *
     * @return the pair this record completes, if any
     */
    public Optional<LatencyPair> feed(EventRecord record) {
        return feed(sequence, record);
    }

    /**
     * Feeds the next record in time order.
     *
     * @param sequence the caller's number for the record (kept in the pair's {@link RecordRef}s);
     *                 later records fed without one continue from {@code sequence + 1}
     * @param record   the record
     * @return the pair this record completes, if any
     * @throws org.tracewire.record.RecordException when a field lies outside the record
     */
    public Optional<LatencyPair> feed(long sequence, EventRecord record) {
        Objects.requireNonNull(record, "record");
        this.sequence = sequence + 1;
        records++;
        long ts = record.timestampNs();
        if (ts < latest) {
            outOfOrder++;
        } else {
            latest = ts;
        }
        Handler h = handlers.computeIfAbsent(record.format(), LatencyTracker::handler);
        switch (h.role) {
            case OTHER:
                return Optional.empty();
            case WAKEUP:
                return wakeup(h, sequence, record);
            case SWITCH: {
                Pending p = pending.remove(new Key(SPACE_WAKEUP, (int) record.integer(h.a), 0));
                return p == null ? Optional.empty() : pair(LatencyPair.Kind.SCHED_WAKEUP, p, sequence, record, record.cpu());
            }
            case RAW_ENTER:
            case SYS_ENTER:
                return syscallEnter(h, sequence, record);
            case RAW_EXIT:
            case SYS_EXIT:
                return syscallExit(h, sequence, record);
            case IRQ_ENTRY:
            case SOFTIRQ_ENTRY:
                return irqEntry(h, sequence, record);
            case IRQ_EXIT:
            case SOFTIRQ_EXIT:
                return irqExit(h, sequence, record);
            default:
                throw new IllegalStateException(h.role.toString());
        }
    }

    /** A wakeup starts its task's wait, unless one is pending already (a repeated wakeup). */
    private Optional<LatencyPair> wakeup(Handler h, long sequence, EventRecord record) {
        int pid = (int) record.integer(h.a);
        Key k = new Key(SPACE_WAKEUP, pid, 0);
        if (pending.containsKey(k)) {
            repeatedWakeups++;
            return Optional.empty();
        }
        start(k, new Pending(ref(sequence, record), h.role, pid, record.string(h.b), record.pid(),
                (int) record.integer(h.c), -1, null));
        return Optional.empty();
    }

    /** A syscall's entry starts its task's call (replacing one that never ended). */
    private Optional<LatencyPair> syscallEnter(Handler h, long sequence, EventRecord record) {
        long id = record.integer(h.a);
        Key k = new Key(h.role == Role.RAW_ENTER ? SPACE_RAW : SPACE_SYS, record.pid(), 0);
        if (pending.remove(k) != null) {
            replacedStarts++;
        }
        start(k, new Pending(ref(sequence, record), h.role, record.pid(), null, -1, record.cpu(), id, h.name));
        return Optional.empty();
    }

    /** A syscall's exit ends its task's call of the same number and name, else it is unmatched. */
    private Optional<LatencyPair> syscallExit(Handler h, long sequence, EventRecord record) {
        Key k = new Key(h.role == Role.RAW_EXIT ? SPACE_RAW : SPACE_SYS, record.pid(), 0);
        Pending p = pending.remove(k);
        if (p == null || p.id != record.integer(h.a) || !Objects.equals(p.name, h.name)) {
            unmatchedEnds++;
            return Optional.empty();
        }
        return pair(LatencyPair.Kind.SYSCALL, p, sequence, record, record.integer(h.b));
    }

    /** An (soft)irq's entry starts its handler on the CPU (replacing one that never ended). */
    private Optional<LatencyPair> irqEntry(Handler h, long sequence, EventRecord record) {
        long id = record.integer(h.a);
        boolean hard = h.role == Role.IRQ_ENTRY;
        Key k = new Key(hard ? SPACE_IRQ : SPACE_SOFTIRQ, record.cpu(), id);
        if (pending.remove(k) != null) {
            replacedStarts++;
        }
        String name = hard ? record.string(h.b) : softirqName(id);
        start(k, new Pending(ref(sequence, record), h.role, record.pid(), null, -1, record.cpu(), id, name));
        return Optional.empty();
    }

    /** An (soft)irq's exit ends the handler of the same number on the CPU, else it is unmatched. */
    private Optional<LatencyPair> irqExit(Handler h, long sequence, EventRecord record) {
        boolean hard = h.role == Role.IRQ_EXIT;
        Pending p = pending.remove(new Key(hard ? SPACE_IRQ : SPACE_SOFTIRQ, record.cpu(), record.integer(h.a)));
        if (p == null) {
            unmatchedEnds++;
            return Optional.empty();
        }
        return pair(hard ? LatencyPair.Kind.IRQ : LatencyPair.Kind.SOFTIRQ, p, sequence, record,
                hard ? record.integer(h.b) : 0);
    }

    /** The counters now. */
    public LatencyStats stats() {
        return new LatencyStats(records, pairs, pending.size(), evicted, replacedStarts, repeatedWakeups, unmatchedEnds,
                outOfOrder, negative);
    }

    /** The pending cap. */
    public int maxPending() {
        return maxPending;
    }

    /** Drops every pending start (counters are kept), e.g. when a capture restarts. */
    public void clearPending() {
        pending.clear();
    }

    private void start(Key k, Pending p) {
        if (pending.size() >= maxPending) {
            Iterator<Map.Entry<Key, Pending>> it = pending.entrySet().iterator();
            it.next();
            it.remove();
            evicted++;
        }
        pending.put(k, p);
    }

    private Optional<LatencyPair> pair(LatencyPair.Kind kind, Pending p, long sequence, EventRecord end, long result) {
        RecordRef e = ref(sequence, end);
        if (e.timestampNs() < p.start.timestampNs()) {
            negative++;
            return Optional.empty();
        }
        pairs++;
        return Optional.of(new LatencyPair(kind, p.start, e, p.pid, p.comm, p.waker, p.cpu, p.id, p.name, result));
    }

    private static RecordRef ref(long sequence, EventRecord r) {
        return new RecordRef(sequence, r.cpu(), r.timestampNs());
    }

    /** The softirq vector's name as the kernel prints it, or {@code "vec N"} beyond the known ones. */
    static String softirqName(long vec) {
        return vec >= 0 && vec < SOFTIRQ_NAMES.length ? SOFTIRQ_NAMES[(int) vec] : "vec " + vec;
    }

    private static Handler handler(EventFormat f) {
        String s = f.system();
        String n = f.name();
        Handler h = switch (s) {
            case "sched" -> switch (n) {
                case "sched_wakeup", "sched_wakeup_new" -> of(Role.WAKEUP, f, "pid", "comm", "target_cpu", null);
                case "sched_switch" -> of(Role.SWITCH, f, "next_pid", null, null, null);
                default -> null;
            };
            case "raw_syscalls" -> switch (n) {
                case "sys_enter" -> of(Role.RAW_ENTER, f, "id", null, null, null);
                case "sys_exit" -> of(Role.RAW_EXIT, f, "id", "ret", null, null);
                default -> null;
            };
            case "syscalls" -> SyscallEvents.isEnter(n)
                    ? of(Role.SYS_ENTER, f, "__syscall_nr", null, null, SyscallEvents.callName(n))
                    : SyscallEvents.isExit(n) ? of(Role.SYS_EXIT, f, "__syscall_nr", "ret", null, SyscallEvents.callName(n))
                    : null;
            case "irq" -> switch (n) {
                case "irq_handler_entry" -> of(Role.IRQ_ENTRY, f, "irq", "name", null, null);
                case "irq_handler_exit" -> of(Role.IRQ_EXIT, f, "irq", "ret", null, null);
                case "softirq_entry" -> of(Role.SOFTIRQ_ENTRY, f, "vec", null, null, null);
                case "softirq_exit" -> of(Role.SOFTIRQ_EXIT, f, "vec", null, null, null);
                default -> null;
            };
            default -> null;
        };
        return h != null ? h : new Handler(Role.OTHER, null, null, null, null);
    }

    /** The handler, or null when a named field is missing (the record is then ignored). */
    private static Handler of(Role role, EventFormat f, String a, String b, String c, String name) {
        Field fa = f.field(a);
        Field fb = b == null ? null : f.field(b);
        Field fc = c == null ? null : f.field(c);
        if (fa == null || (b != null && fb == null) || (c != null && fc == null)) {
            return null;
        }
        return new Handler(role, fa, fb, fc, name);
    }
}
