package org.tracewire.wire;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.format.TaskFields;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.Expr;
import org.tracewire.printfmt.FormatSegment;
import org.tracewire.printfmt.PrintFmt;

/**
 * Where an event's context-relevant values sit in its payload, made once per event format
 * ({@link #of}) from the format and its parsed print fmt, for the {@link ContextPlanner}: the task
 * fields ({@link TaskFields}) with their comm, the symbol addresses ({@code %pS}-family arguments)
 * and string pointers ({@code %s} of a pointer field) its print fmt prints, the fields a computed
 * address depends on, and the stack arrays of {@code ftrace:kernel_stack} / {@code user_stack}.
 * Immutable.
 */
public final class ContextPlan {
    final EventFormat format;
    final EventPrinter printer;
    /** Task pids named with their comm, then {@code common_pid} (its comm: -1). */
    final int[] pidOffsets;
    /** Per {@link #pidOffsets}: a fixed comm's offset, -(offset + 2) of a {@code __data_loc} one, or -1. */
    final int[] commOffsets;
    /** Every task field ({@link TaskFields}), {@code common_pid} first: what {@link Naming#FILE} describes. */
    final int[] allPidOffsets;
    final int[] symOffsets;
    final int[] symSizes;
    final boolean[] symBacktrace;
    final int[] computed;
    final int[] computedSizes;
    final int[] strOffsets;
    final int[] strSizes;
    final int execPid;
    final Field execFile;
    /**
     * {@code ftrace:kernel_stack}: the offset of its {@code caller} array of return addresses, whose
     * length is the record's, not the format's 8 ({@link #stackArray}); -1 for other events. (Its
     * print fmt's {@code %ps} of {@code caller[0..7]}, not looked up themselves, keep the plan off
     * the common-pid fast path.)
     */
    final int stackAt;
    /** With {@link #stackAt}: the array's element size (the kernel's long). */
    final int stackStep;
    /**
     * {@code ftrace:user_stack}: the offset of its {@code caller} array of user addresses (its 8
     * entries, up to the first 0), resolved per process ({@link UserStacks}); -1 for other events.
     */
    final int userStackAt;
    /** With {@link #userStackAt}: the array's end, the element size, and the {@code tgid} field's offset. */
    final int userStackEnd;
    final int userStep;
    final int tgidAt;
    /**
     * Nothing to check but {@code common_pid} (no symbols, strings, named tasks or exec) when
     * tasks are named {@link Naming#LIVE}; a file also names the other {@link #allPidOffsets}.
     */
    final boolean onlyCommonPid;
    /** With {@link #onlyCommonPid}: the offset of {@code common_pid}, else -1 (the per-event fast path's test). */
    final int onlyPidAt;

    private ContextPlan(EventFormat format, EventPrinter printer, List<int[]> pids, int[] allPids,
         List<int[]> syms, List<int[]> computed, List<int[]> strings, int execPid, Field execFile) {
        this.format = format;
        this.printer = printer;
        this.pidOffsets = pids.stream().mapToInt(a -> a[0]).toArray();
        this.commOffsets = pids.stream().mapToInt(a -> a[1]).toArray();
        this.allPidOffsets = allPids;
        this.symOffsets = syms.stream().mapToInt(a -> a[0]).toArray();
        this.symSizes = syms.stream().mapToInt(a -> a[1]).toArray();
        this.symBacktrace = new boolean[syms.size()];
        for (int i = 0; i < syms.size(); i++) {
            symBacktrace[i] = syms.get(i)[2] != 0;
        }
        this.computed = computed.stream().mapToInt(a -> a[0]).toArray();
        this.computedSizes = computed.stream().mapToInt(a -> a[1]).toArray();
        this.strOffsets = strings.stream().mapToInt(a -> a[0]).toArray();
        this.strSizes = strings.stream().mapToInt(a -> a[1]).toArray();
        this.execPid = execPid;
        this.execFile = execFile;
        Field stack = stackArray(format);
        this.stackAt = stack == null ? -1 : stack.offset();
        this.stackStep = stack == null ? 0 : stack.elementSize();
        Field user = userStackArray(format);
        Field tgid = format.field("tgid");
        boolean users = user != null && tgid != null && tgid.size() == 4;
        this.userStackAt = users ? user.offset() : -1;
        this.userStackEnd = users ? user.offset() + user.size() : -1;
        this.userStep = users ? user.elementSize() : 0;
        this.tgidAt = users ? tgid.offset() : -1;
        this.onlyCommonPid = pidOffsets.length == 1 && commOffsets[0] < 0 && symOffsets.length == 0
                && this.computed.length == 0 && strOffsets.length == 0 && execPid < 0;
        this.onlyPidAt = onlyCommonPid ? pidOffsets[0] : -1;
    }

    /** Payload offsets of the task pids named with their comm, then {@code common_pid}'s. */
    public int[] pidOffsets() {
        return pidOffsets.clone();
    }

    /** Per {@link #pidOffsets()}: the payload offset of a fixed 16-byte comm, else a negative number. */
    public int[] commOffsets() {
        return commOffsets.clone();
    }

    /** Payload offsets of the code addresses the print fmt prints directly ({@code %pS}, …). */
    public int[] symbolOffsets() {
        return symOffsets.clone();
    }

    /** True for {@code sched_process_exec} (live: the task is renamed after the executed file). */
    public boolean exec() {
        return execPid >= 0;
    }

    /** Per {@link #symbolOffsets()}: true for {@code %pB} (a return address: its symbol is at value − 1). */
    public boolean[] symbolBacktrace() {
        return symBacktrace.clone();
    }

    /**
     * The plan of an event format.
     *
     * @param f      the format
     * @param layout the traced kernel's byte order and long size
     * @return its plan
     */
    public static ContextPlan of(EventFormat f, KernelLayout layout) {
        int longSize = layout.longSize();
        List<int[]> pids = new ArrayList<>();
        List<Integer> all = new ArrayList<>();
        boolean exec = f.system().equals("sched") && f.name().equals("sched_process_exec");
        int execPid = -1;
        for (TaskFields.TaskField t : TaskFields.of(f)) {
            all.add(t.pid().common() ? 0 : all.size(), t.pid().offset());
            Field comm = t.comm();
            if (comm != null && comm.kind() == FieldKind.CHAR_ARRAY) {
                pids.add(new int[] {t.pid().offset(), comm.offset()});
            } else if (comm != null) {
                // a __data_loc comm (sched_process_fork since 6.x): encoded as -(offset + 2)
                pids.add(new int[] {t.pid().offset(), -(comm.offset() + 2)});
            } else if (t.pid().common()) {
                // after the pids the record names (their comm is the record's): usually one of them
                pids.add(new int[] {t.pid().offset(), -1});
            } else if (exec && t.pid().name().equals("pid")) {
                execPid = t.pid().offset();
            }
            // live, other tasks without their name in the record are not described (no name to
            // check against what /proc says); a file names them (Naming.FILE)
        }
        EventPrinter printer = EventPrinter.compile(f, layout);
        List<int[]> syms = new ArrayList<>();
        List<int[]> computed = new ArrayList<>();
        List<int[]> strings = new ArrayList<>();
        PrintFmt pf = printer.printFmt();
        if (pf != null) {
            arguments(pf, longSize, syms, computed, strings);
        }
        Field file = exec ? f.field("filename") : null;
        return new ContextPlan(f, printer, pids, all.stream().mapToInt(Integer::intValue).toArray(), syms,
                dedup(computed), strings, execPid, file);
    }

    /**
     * What the print fmt's arguments need described: symbol fields ({@code %pS}…: offset, size,
     * 1 for {@code %pB}) into {@code syms}, else the fields a computed symbol reads into
     * {@code computed}; pointer-sized fields printed with {@code %s} (offset, size) into
     * {@code strings}.
     */
    private static void arguments(PrintFmt pf, int longSize, List<int[]> syms, List<int[]> computed, List<int[]> strings) {
        int ai = 0;
        for (FormatSegment seg : pf.segments()) {
            if (!(seg instanceof FormatSegment.Conversion c)) {
                continue;
            }
            ai += c.argumentCount() - 1;
            if (ai >= pf.args().size()) {
                break;
            }
            Expr arg = pf.args().get(ai++);
            if (isSymbol(c)) {
                int[] d = direct(arg, longSize);
                if (d != null && d[1] == longSize) {
                    syms.add(new int[] {d[0], d[1], c.extension().charAt(0) == 'B' ? 1 : 0});
                } else {
                    sources(arg, computed);
                }
            } else if (c.conversion() == 's') {
                Expr a = strip(arg);
                List<Expr> options = a instanceof Expr.Ternary t ? List.of(strip(t.then()), strip(t.otherwise())) : List.of(a);
                for (Expr o : options) {
                    if (o instanceof Expr.FieldRef r && r.field() != null && pointerLike(r.field(), longSize)) {
                        strings.add(new int[] {r.field().offset(), r.field().size()});
                    }
                }
            }
        }
    }

    /**
     * The {@code caller} array of {@code ftrace:kernel_stack} (its elements 4 or 8 bytes), or null:
     * the records of a kernel stack trace, whose array holds the format's {@code size} entries
     * ({@code __stack_array} in {@code kernel/trace/trace_entries.h}).
     */
    static Field stackArray(EventFormat f) {
        if (!f.system().equals("ftrace") || !f.name().equals("kernel_stack")) {
            return null;
        }
        Field c = f.field("caller");
        return c != null && c.kind() == FieldKind.ARRAY && (c.elementSize() == 8 || c.elementSize() == 4) ? c : null;
    }

    /** The {@code caller} array of {@code ftrace:user_stack} (elements 4 or 8 bytes), or null. */
    static Field userStackArray(EventFormat f) {
        if (!f.system().equals("ftrace") || !f.name().equals("user_stack")) {
            return null;
        }
        Field c = f.field("caller");
        return c != null && c.kind() == FieldKind.ARRAY && (c.elementSize() == 8 || c.elementSize() == 4) ? c : null;
    }

    private static List<int[]> dedup(List<int[]> l) {
        Map<Long, int[]> m = new LinkedHashMap<>();
        for (int[] a : l) {
            m.putIfAbsent(((long) a[0] << 32) | a[1], a);
        }
        return new ArrayList<>(m.values());
    }

    private static boolean isSymbol(FormatSegment.Conversion c) {
        return c.conversion() == 'p' && !c.extension().isEmpty() && "SsBFf".indexOf(c.extension().charAt(0)) >= 0;
    }

    private static boolean pointerLike(Field f, int longSize) {
        return f.kind() == FieldKind.POINTER || (f.kind() == FieldKind.INTEGER && f.size() == longSize);
    }

    private static Expr strip(Expr e) {
        while (e instanceof Expr.Cast c) {
            e = c.operand();
        }
        return e;
    }

    /** {offset, size} when the argument is one field (through casts) or a constant element of a field array. */
    private static int[] direct(Expr arg, int longSize) {
        Expr e = strip(arg);
        if (e instanceof Expr.FieldRef r && r.field() != null && !r.field().common()
                && (r.field().kind() == FieldKind.POINTER || r.field().kind() == FieldKind.INTEGER)) {
            return new int[] {r.field().offset(), r.field().size()};
        }
        if (e instanceof Expr.Index ix && strip(ix.base()) instanceof Expr.FieldRef r && r.field() != null
                && r.field().kind() == FieldKind.ARRAY && ix.index() instanceof Expr.IntLit k) {
            int el = r.field().elementSize();
            if (k.value() >= 0 && r.field().arrayLength() > 0 && k.value() < r.field().arrayLength() && el > 0) {
                return new int[] {r.field().offset() + (int) k.value() * el, el};
            }
        }
        return null;
    }

    /** Every fixed-size field (or constant array element) an expression reads. */
    private static void sources(Expr e, List<int[]> out) {
        if (e == null) {
            return;
        }
        int[] d = direct(e, 8);
        if (d != null && (d[1] == 1 || d[1] == 2 || d[1] == 4 || d[1] == 8)) {
            out.add(d);
            return;
        }
        for (Expr child : children(e)) {
            sources(child, out);
        }
    }

    /** The identifiers an event's print fmt names (enum constants, variables). */
    static Set<String> identifiers(EventFormat f) {
        Set<String> out = new LinkedHashSet<>();
        PrintFmt pf = EventPrinter.compile(f, KernelLayout.host()).printFmt();
        if (pf != null) {
            pf.args().forEach(a -> identifiers(a, out));
        }
        return out;
    }

    private static void identifiers(Expr e, Set<String> out) {
        if (e instanceof Expr.Ident id) {
            out.add(id.name());
        }
        for (Expr child : children(e)) {
            identifiers(child, out);
        }
    }

    /** The sub-expressions of an expression ({@link Expr#children}). */
    private static List<Expr> children(Expr e) {
        return Expr.children(e);
    }

    /**
     * What the captured events' print fmts need from the kernel, so only that is loaded.
     *
     * @param symbols     a {@code %pS}-family conversion (kallsyms)
     * @param printk      a {@code %s} of a pointer field ({@code printk_formats})
     * @param identifiers an identifier the kernel left unresolved (BTF enums)
     * @param calibration {@code vmemmap_base} or {@code struct page} arithmetic (calibration)
     */
    public record Needs(boolean symbols, boolean printk, boolean identifiers, boolean calibration) {
    }

    /** What the print fmts of these events need loaded (a live capture loads only those). */
    public static Needs needs(Collection<EventFormat> formats, KernelLayout layout) {
        boolean symbols = false;
        boolean printk = false;
        boolean idents = false;
        boolean calibration = false;
        for (EventFormat f : formats) {
            ContextPlan p = of(f, layout);
            symbols |= (p.symOffsets.length > 0 && p.userStackAt < 0) || p.computed.length > 0 || p.stackAt >= 0;
            printk |= p.strOffsets.length > 0;
            Set<String> ids = identifiers(f);
            idents |= !ids.isEmpty();
            calibration |= ids.contains("vmemmap_base") || f.printFmt().contains("struct page");
        }
        return new Needs(symbols, printk, idents, calibration);
    }
}
