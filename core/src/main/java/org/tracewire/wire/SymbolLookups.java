package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.wire.ContextPlanner.Sources;
import org.tracewire.wire.ContextPlanner.UserSymbol;

/**
 * The SYMBOLS side of the {@link ContextPlanner}: which code addresses ({@code %pS}-family
 * arguments, computed addresses, kernel stack return addresses), {@code printk_formats} string
 * pointers and user stack addresses (per process) were looked up, the items sent for them (kept for
 * repeats), and the SYMBOLS message being built for the current event. Lookups go through the
 * planner's {@link Sources}; each address is looked up once, past a cap it is counted in
 * {@link #dropped()}. Not thread-safe.
 */
final class SymbolLookups {
    /** (tgid, file name) pairs whose build id is remembered as sent, at most. */
    private static final int MAX_USER_OBJECTS = 65536;

    private final Sources ctx;
    private final KernelLayout layout;
    private final PayloadReads reads;
    private final LongSet symbolsLooked;
    private final LongSet stringsLooked;
    private final LongSet computedKeys;
    /** Symbol items sent, by lookup address (for repeats). */
    private final Map<Long, ContextMessage.Item> symbolItems = new LinkedHashMap<>();
    private final List<ContextMessage.Item> stringItems = new ArrayList<>();
    /** User stack addresses looked up ({@link ContextPlanner#userKey}), the items sent for them (for repeats). */
    private final LongSet usersLooked;
    private final List<ContextMessage.Item> userItems = new ArrayList<>();
    /** (tgid, file name) whose build id was sent (SYMBOLS item 6), at most {@link #MAX_USER_OBJECTS}. */
    private final Set<String> userObjects = new HashSet<>();
    private final Recorder recorder = new Recorder();
    private final PendingMessage pending = new PendingMessage(FrameKind.SYMBOLS);
    private long dropped;

    SymbolLookups(Sources ctx, PayloadReads reads, int maxSymbols, int maxStrings) {
        this.ctx = ctx;
        this.layout = ctx.layout();
        this.reads = reads;
        this.symbolsLooked = new LongSet(maxSymbols);
        this.computedKeys = new LongSet(maxSymbols);
        this.stringsLooked = new LongSet(maxStrings);
        this.usersLooked = new LongSet(maxSymbols);
    }

    /**
     * Looks up what the event's plan points at and was not looked up yet: its stack's addresses (in
     * place of its print fmt's), its direct and computed symbol addresses, its string pointers. The
     * items found go into the message {@link #take} returns.
     */
    void look(ContextPlan p, ByteBuffer buf, int payload, int length, int id, int cpu) {
        if (p.stackAt >= 0) {
            stackSymbols(buf, payload, length, p); // in place of its print fmt's caller[0..7]
        } else if (p.userStackAt >= 0) {
            if (ctx.userStacks() != null) {
                userStackSymbols(buf, payload, length, p); // user addresses: no kernel symbols
            }
        } else {
            directSymbols(buf, payload, length, p);
        }
        if (p.computed.length > 0) {
            computedSymbols(buf, payload, length, p, id, cpu);
        }
        for (int i = 0; i < p.strOffsets.length; i++) {
            int off = p.strOffsets[i];
            if (off + p.strSizes[i] > length) {
                continue;
            }
            long v = reads.read(buf, payload + off, p.strSizes[i]);
            if (v != 0 && !stringsLooked.contains(v)) {
                string(v);
            }
        }
    }

    /** The SYMBOLS message of what {@link #look} found since the last call, or null when nothing. */
    ContextMessage take() {
        return pending.take();
    }

    /** Every item sent so far, symbols first, then printk strings, then user stack items (for repeats). */
    List<ContextMessage.Item> items() {
        List<ContextMessage.Item> items = new ArrayList<>(symbolItems.values());
        items.addAll(stringItems);
        items.addAll(userItems);
        return items;
    }

    /** Symbol addresses described so far (found or not). */
    int symbolCount() {
        return symbolItems.size();
    }

    /** Symbol, printk string and user stack items sent so far. */
    long itemCount() {
        return symbolItems.size() + stringItems.size() + userItems.size();
    }

    /** Addresses not described because a cap was reached. */
    long dropped() {
        return dropped;
    }

    /** The print fmt's {@code %pS}-family arguments read straight from fields. */
    private void directSymbols(ByteBuffer buf, int payload, int length, ContextPlan p) {
        for (int i = 0; i < p.symOffsets.length; i++) {
            int off = p.symOffsets[i];
            if (off + p.symSizes[i] > length) {
                continue;
            }
            long v = reads.read(buf, payload + off, p.symSizes[i]);
            if (v == 0) {
                continue;
            }
            long address = p.symBacktrace[i] ? v - 1 : v;
            if (!symbolsLooked.contains(address)) {
                symbol(address);
            }
        }
    }

    /** Addresses the print fmt computes: keyed by the fields they depend on, rendered once per key. */
    private void computedSymbols(ByteBuffer buf, int payload, int length, ContextPlan p, int id, int cpu) {
        long key = id;
        for (int i = 0; i < p.computed.length; i++) {
            int off = p.computed[i];
            if (off + p.computedSizes[i] > length) {
                return;
            }
            key = key * 0x9E3779B97F4A7C15L + reads.read(buf, payload + off, p.computedSizes[i]);
            key ^= key >>> 29;
        }
        if (!computedKeys.contains(key)) {
            computed(p, buf, payload, length, cpu, key);
        }
    }

    /**
     * A kernel stack's return addresses ({@link ContextPlan#stackAt}): the array runs to the record's end
     * and stops at {@code ULONG_MAX}, as the kernel's {@code trace_stack_print()} reads it; 0 is
     * printed as {@code 0}, not looked up.
     */
    private void stackSymbols(ByteBuffer buf, int payload, int length, ContextPlan p) {
        long end = p.stackStep == 8 ? -1L : 0xffff_ffffL;
        for (int off = p.stackAt; off + p.stackStep <= length; off += p.stackStep) {
            long v = reads.read(buf, payload + off, p.stackStep);
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
     * while the process lives, into its ELF files' functions ({@link ContextPlanner.UserStacks}), sent as
     * SYMBOLS items 4 (or 5: not resolved), each file's build id once per process before its first item 4
     * (item 6).
     */
    private void userStackSymbols(ByteBuffer buf, int payload, int length, ContextPlan p) {
        if (p.tgidAt + 4 > length) {
            return;
        }
        int tgid = (int) reads.read(buf, payload + p.tgidAt, 4);
        int end = Math.min(length, p.userStackEnd);
        for (int off = p.userStackAt; off + p.userStep <= end; off += p.userStep) {
            long v = reads.read(buf, payload + off, p.userStep);
            if (v == 0) {
                break;
            }
            long key = ContextPlanner.userKey(tgid, v);
            if (!usersLooked.contains(key)) {
                userSymbol(tgid, v, key);
            }
        }
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
            pending.builder().bytes(item.type(), item.value());
            userItems.add(item);
        }
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
        ContextMessage.Builder b = pending.builder();
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
            pending.builder().printk(address, s);
            stringItems.add(item);
        }
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
}
