package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlan;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;

/**
 * The context a capture sends ({@link ContextPlanner} fed by a {@link CaptureContext}), on the
 * checked-in page fixture (real records of many events) with the snapshot's formats: what is sent
 * and when (CAPTURE first; FORMAT once per id before its first
 * event; every task and every printed symbol address once, before the first event that needs it),
 * that a stream whose context was sent allocates nothing, the caps, and the round trip: a pcapng of
 * these frames, read back by {@link PcapngInput} from its own context alone, renders every record as
 * a renderer given the full kernel context does.
 */
class ContextTrackerTest {
    static final KernelLayout LAYOUT = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);

    private static final Map<Integer, ContextPlan> PLANS = new HashMap<>();

    static synchronized ContextPlan plan(EventFormat f) {
        return PLANS.computeIfAbsent(f.id(), id -> ContextPlan.of(f, LAYOUT));
    }

    /** A symbol table that covers every address the fixture's symbol arguments carry: 4 KiB symbols. */
    static Kallsyms symbolsFor(List<EventRecord> records) {
        Map<Long, SymbolResolver.Symbol> m = new TreeMap<>();
        for (EventRecord r : records) {
            ContextPlan p = plan(r.format());
            for (int i = 0; i < p.symbolOffsets().length; i++) {
                long v = r.payload().getLong(p.symbolOffsets()[i]);
                long start = v & ~0xfffL;
                if (start != 0) {
                    m.putIfAbsent(start, new SymbolResolver.Symbol("fn_" + Long.toHexString(start >>> 12), start, 0x1000,
                            (start >>> 12) % 7 == 0 ? "mod" : null));
                }
            }
        }
        return new Kallsyms(new ArrayList<>(m.values()));
    }

    static CaptureContext context(List<EventRecord> records, ContextPlanner.Tasks tasks) {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        Map<Integer, EventFormat> formats = snap.formats().byId();
        Kallsyms symbols = symbolsFor(records);
        var capture = new ContextMessages.Capture("test-capture", "6.18.0", "boot", "host", "mono", 1000, 5, LAYOUT,
                snap.read("events/header_page"), null, Map.of("HZ", 250L), "test", List.of("sched:sched_switch"));
        return new CaptureContext(capture, formats, LAYOUT,
                f -> snap.read("events/" + f.system() + "/" + f.name() + "/format"), () -> symbols,
                PrintkFormats.parse(snap.read("printk_formats")), KernelEnums::empty, 250, KernelVariables.empty(),
                tasks, f -> new byte[] {5, 0, 0, 0, 0, 0, 0, 0, 0});
    }

    /** Every record as a frame in a direct buffer with headroom: {buffer, frame offset, length}. */
    static final class Frames {
        final ByteBuffer buf;
        final int[] offsets;
        final int[] lengths;

        Frames(List<EventRecord> records) {
            int total = 0;
            for (EventRecord r : records) {
                total += FrameOutput.HEADROOM + WireHeader.SIZE + r.length();
            }
            buf = ByteBuffer.allocateDirect(total);
            offsets = new int[records.size()];
            lengths = new int[records.size()];
            FrameEncoder enc = new FrameEncoder();
            for (int i = 0; i < records.size(); i++) {
                EventRecord r = records.get(i);
                buf.position(buf.position() + FrameOutput.HEADROOM);
                offsets[i] = buf.position();
                lengths[i] = enc.event(r.layout().byteOrder(), r.payload(), r.cpu(), time(r), false, buf);
            }
        }
    }

    static long time(EventRecord r) {
        return 1_700_000_000_000_000_000L + r.timestampNs();
    }

    record Sent(ContextMessage message, int cpu, int beforeEvent) {
    }

    @Test
    void contextGoesBeforeTheEventsThatNeedItOnce() throws IOException {
        List<EventRecord> records = FixtureRecords.load();
        List<Sent> sent = new ArrayList<>();
        int[] at = {0};
        CaptureContext ctx = context(records, pid -> new ContextPlanner.Task(pid + 1, "task" + pid));
        ContextPlanner t = new ContextPlanner(ctx.sources(), (m, cpu, time, lost, repeat) -> sent.add(new Sent(m, cpu, at[0])));
        t.begin(1);
        Frames fr = new Frames(records);
        for (int i = 0; i < records.size(); i++) {
            at[0] = i;
            EventRecord r = records.get(i);
            t.beforeEvent(fr.buf, fr.offsets[i] + WireHeader.SIZE, fr.lengths[i] - WireHeader.SIZE, r.format(), r.cpu(),
                    time(r));
        }
        assertEquals(FrameKind.CAPTURE, sent.get(0).message().kind());
        assertEquals("test-capture", sent.get(0).message().text(ContextMessage.CAPTURE_ID));
        Map<Integer, Integer> formatAt = new HashMap<>();
        Map<Integer, Integer> taskAt = new HashMap<>();
        Map<Long, Integer> symbolAt = new HashMap<>();
        Map<String, Integer> kinds = new TreeMap<>();
        for (Sent s : sent) {
            kinds.merge(s.message().kind().name(), 1, Integer::sum);
            switch (s.message().kind()) {
                case FORMAT -> {
                    int id = (int) s.message().first(ContextMessage.FORMAT_ID).number();
                    assertEquals(null, formatAt.put(id, s.beforeEvent()), "FORMAT of " + id + " sent twice");
                    assertNotNull(s.message().first(ContextMessage.FORMAT_DESCRIPTION), "the description hook's item");
                    assertTrue(s.message().text(ContextMessage.FORMAT_TEXT).contains("ID: " + id));
                }
                case PROCESS -> {
                    for (ContextMessage.Item i : s.message().all(ContextMessage.PROCESS_TASK)) {
                        taskAt.putIfAbsent(i.buffer().getInt(0), s.beforeEvent());
                    }
                }
                case SYMBOLS -> {
                    for (ContextMessage.Item i : s.message().all(ContextMessage.SYMBOL)) {
                        assertEquals(null, symbolAt.put(i.buffer().getLong(0), s.beforeEvent()), "symbol sent twice");
                    }
                }
                default -> {
                }
            }
        }
        Map<String, Integer> symbolEvents = new TreeMap<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            Integer f = formatAt.get(r.format().id());
            assertTrue(f != null && f <= i, "FORMAT of " + r.format().fullName() + " not before event " + i);
            Integer p = taskAt.get(r.pid());
            assertTrue(p != null && p <= i, "PROCESS of pid " + r.pid() + " not before event " + i);
            ContextPlan plan = plan(r.format());
            for (int k = 0; k < plan.symbolOffsets().length; k++) {
                long v = r.payload().getLong(plan.symbolOffsets()[k]);
                if (v != 0) {
                    long a = plan.symbolBacktrace()[k] ? v - 1 : v;
                    Integer s = symbolAt.get(a);
                    assertTrue(s != null && s <= i, "symbol 0x" + Long.toHexString(a) + " not before event " + i);
                    symbolEvents.merge(r.format().fullName(), 1, Integer::sum);
                }
            }
        }
        System.out.printf("fixture: %d records, %d event ids, context messages %s, %d tasks, %d symbols; "
                + "events with symbols %s%n", records.size(), formatAt.size(), kinds, taskAt.size(), symbolAt.size(),
                symbolEvents);
        assertTrue(symbolAt.size() > 0, "the fixture has events that print symbols");
        assertEquals(t.messages(), sent.size());

        // a second pass over the records that name their tasks as last described (the fixture holds
        // several captures, so some pids have other names earlier): nothing sent, nothing allocated
        Map<Integer, String> names = new HashMap<>();
        for (Sent s : sent) {
            for (String task : taskItems(List.of(s.message()))) {
                String[] f = task.split("/", 3);
                names.put(Integer.parseInt(f[0]), f[2]);
            }
        }
        List<Integer> again = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            ContextPlan plan = plan(r.format());
            boolean same = true;
            for (int k = 0; k < plan.pidOffsets().length; k++) {
                int pid = r.payload().getInt(plan.pidOffsets()[k]);
                if (plan.commOffsets()[k] >= 0 && pid != 0) {
                    byte[] c = new byte[16];
                    r.payload().get(plan.commOffsets()[k], c);
                    int n = 0;
                    while (n < 16 && c[n] != 0) {
                        n++;
                    }
                    same &= new String(c, 0, n).equals(names.get(pid));
                } else if (plan.commOffsets()[k] < -1 && pid != 0) {
                    // a __data_loc comm (sched_process_fork): offset and length in its 4 bytes
                    int loc = r.payload().getInt(-plan.commOffsets()[k] - 2);
                    byte[] c = new byte[loc >>> 16];
                    r.payload().get(loc & 0xffff, c);
                    int n = 0;
                    while (n < c.length && n < 16 && c[n] != 0) {
                        n++;
                    }
                    same &= new String(c, 0, n).equals(names.get(pid));
                }
            }
            if (same && !plan.exec()) { // an exec asks /proc each time: this test's lookup names it "taskN"
                again.add(i);
            }
        }
        sent.clear();
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i : again) {
            EventRecord r = records.get(i);
            t.beforeEvent(fr.buf, fr.offsets[i] + WireHeader.SIZE, fr.lengths[i] - WireHeader.SIZE, r.format(), r.cpu(),
                    time(r));
        }
        long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertEquals(List.of(), sent, "context sent again");
        assertTrue(again.size() > records.size() / 2, again.size() + " of " + records.size());
        assertTrue(allocated < 4096, allocated + " bytes allocated for " + again.size() + " known events");
    }

    @Test
    void aTaskRenamedInTheStreamIsDescribedAgain() throws IOException {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        EventFormat sw = snap.format("sched", "sched_switch");
        List<ContextMessage> sent = new ArrayList<>();
        ContextPlanner t = new ContextPlanner(context(List.of(), pid -> new ContextPlanner.Task(7, "proc")).sources(),
                (m, cpu, time, lost, repeat) -> sent.add(m));
        t.begin(0);
        ByteBuffer p = ByteBuffer.allocate(sw.fixedSize()).order(ByteOrder.LITTLE_ENDIAN);
        p.putShort(0, (short) sw.id()).putInt(4, 100);
        p.put(sw.field("prev_comm").offset(), "sh\0".getBytes()).putInt(sw.field("prev_pid").offset(), 100);
        p.put(sw.field("next_comm").offset(), "swapper/1\0".getBytes()).putInt(sw.field("next_pid").offset(), 0);
        t.beforeEvent(p, 0, p.capacity(), sw, 0, 1);
        List<String> tasks = taskItems(sent);
        assertEquals(List.of("100/7/sh", "0/0/<idle>"), tasks, "prev from the record's prev_comm, pid 0 as the kernel names it");
        sent.clear();
        p.put(sw.field("next_comm").offset(), "swapper/0\0".getBytes());
        t.beforeEvent(p, 0, p.capacity(), sw, 1, 2);
        assertEquals(List.of(), taskItems(sent), "pid 0's per-CPU name is not a rename");
        p.put(sw.field("prev_comm").offset(), "true\0".getBytes());
        t.beforeEvent(p, 0, p.capacity(), sw, 1, 3);
        assertEquals(List.of("100/7/true"), taskItems(sent), "exec'd: the new name");
    }

    /** The addresses of the SYMBOLS items sent (found or not), in order. */
    static List<Long> symbolAddresses(List<ContextMessage> sent) {
        List<Long> out = new ArrayList<>();
        for (ContextMessage m : sent) {
            if (m.kind() == FrameKind.SYMBOLS) {
                for (ContextMessage.Item i : m.items()) {
                    out.add(i.buffer().getLong(0));
                }
            }
        }
        return out;
    }

    @Test
    void aKernelStacksEveryReturnAddressGetsSymbolsOnceAndAUserStacksItsProcesss() throws IOException {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        EventFormat ks = snap.format("ftrace", "kernel_stack");
        EventFormat us = snap.format("ftrace", "user_stack");
        List<ContextMessage> sent = new ArrayList<>();
        ContextPlanner t = new ContextPlanner(context(List.of(), pid -> new ContextPlanner.Task(7, "proc")).sources(),
                (m, cpu, time, lost, repeat) -> sent.add(m));
        // 10 return addresses: the record is longer than the format's caller[8], as the kernel writes it
        int n = 10;
        ByteBuffer p = ByteBuffer.allocate(16 + 8 * n).order(ByteOrder.LITTLE_ENDIAN);
        p.putShort(0, (short) ks.id()).putInt(4, 100).putInt(8, n);
        List<Long> want = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long a = 0xffffffff81000000L + 0x1000L * i + 0x10;
            p.putLong(16 + 8 * i, a);
            want.add(a);
        }
        t.beforeEvent(p, 0, p.capacity(), ks, 0, 1);
        assertEquals(Set.copyOf(want), Set.copyOf(symbolAddresses(sent)), "every address, past caller[7] too");
        assertEquals(n, symbolAddresses(sent).size(), "each once");
        sent.clear();
        // a shorter stack of known addresses, then one ended by ULONG_MAX
        ByteBuffer q = ByteBuffer.allocate(16 + 8 * 3).order(ByteOrder.LITTLE_ENDIAN);
        q.putShort(0, (short) ks.id()).putInt(4, 100).putInt(8, 3);
        q.putLong(16, want.get(0)).putLong(24, -1L).putLong(32, 0xffffffff82000000L);
        t.beforeEvent(q, 0, q.capacity(), ks, 0, 2);
        assertEquals(List.of(), symbolAddresses(sent), "known addresses are not sent again; none after ULONG_MAX");
        // a user stack: no kernel symbols; each (process, address) looked up in that process once
        // (pid 0x7ffffff0 runs nowhere: item 5, unknown); a 0 ends the stack
        int tgid = 0x7ffffff0;
        ByteBuffer u = ByteBuffer.allocate(us.fixedSize()).order(ByteOrder.LITTLE_ENDIAN);
        u.putShort(0, (short) us.id()).putInt(4, 100).putInt(8, tgid).putLong(16, 0x7f0000001000L)
                .putLong(24, 0x55aa00001000L).putLong(40, 0x7f0000009000L);
        t.beforeEvent(u, 0, u.capacity(), us, 0, 3);
        List<String> user = new ArrayList<>();
        for (ContextMessage m : sent) {
            if (m.kind() == FrameKind.SYMBOLS) {
                for (ContextMessage.Item i : m.items()) {
                    user.add(i.type() + "/" + i.buffer().getInt(0) + "/" + Long.toHexString(i.buffer().getLong(4)));
                }
            }
        }
        assertEquals(List.of("5/" + tgid + "/7f0000001000", "5/" + tgid + "/55aa00001000"), user);
        sent.clear();
        t.beforeEvent(u, 0, u.capacity(), us, 1, 4);
        u.putInt(8, tgid + 1);
        t.beforeEvent(u, 0, u.capacity(), us, 1, 5);
        assertEquals(2, sent.stream().filter(m -> m.kind() == FrameKind.SYMBOLS).mapToInt(m -> m.items().size()).sum(),
                "nothing again for the same process; the same addresses of another process are its own");
        assertTrue(ContextPlan.needs(List.of(ks), LAYOUT).symbols(), "a kernel stack needs kallsyms");
        assertTrue(!ContextPlan.needs(List.of(us), LAYOUT).symbols(), "a user stack does not");
    }

    @Test
    void namingRecordsNameTasksInStreamOrderWithoutFormats() throws IOException {
        Tracefs live = Prerequisites.requireTracefs();
        EventFormat fork = live.format("sched", "sched_process_fork");
        EventFormat exec = live.format("sched", "sched_process_exec");
        EventFormat rename = live.format("task", "task_rename");
        List<ContextMessage> sent = new ArrayList<>();
        // the host's lookup would name every pid "proc": each name below must come from a record
        ContextPlanner t = new ContextPlanner(context(List.of(), pid -> new ContextPlanner.Task(7, "proc")).sources(),
                (m, cpu, time, lost, repeat) -> sent.add(m));
        t.begin(0);
        sent.clear();
        t.namingEvent(record(fork, Map.of("parent_comm", "sh", "child_comm", "sh"), Map.of("parent_pid", 100,
                "child_pid", 101, "common_pid", 100)), 0, recordLength, fork, 1);
        assertEquals(List.of("100/7/sh", "101/7/sh"), taskItems(sent), "parent and child named by the fork record");
        assertTrue(sent.stream().noneMatch(m -> m.kind() == FrameKind.FORMAT), "a naming record is not framed: no FORMAT");
        sent.clear();
        t.namingEvent(record(exec, Map.of("filename", "/usr/bin/a-very-long-program-name"), Map.of("pid", 101,
                "old_pid", 101, "common_pid", 101)), 0, recordLength, exec, 2);
        assertEquals(List.of("101/101/a-very-long-pro"), taskItems(sent), "exec: the file's name, cut to 15 bytes");
        sent.clear();
        t.namingEvent(record(rename, Map.of("oldcomm", "a-very-long-pro", "newcomm", "worker"), Map.of("pid", 101,
                "common_pid", 101)), 0, recordLength, rename, 3);
        assertEquals(List.of("101/101/worker"), taskItems(sent), "rename: the new name");
        sent.clear();
        t.namingEvent(record(fork, Map.of("parent_comm", "sh", "child_comm", "sh"), Map.of("parent_pid", 100,
                "child_pid", 101, "common_pid", 100)), 0, recordLength, fork, 4);
        assertEquals(List.of("101/101/sh"), taskItems(sent), "a reused pid: the new task's name");
    }

    private int recordLength;

    /** A record of {@code f}: string fields (fixed or __data_loc) and 4-byte integers set, little-endian. */
    private ByteBuffer record(EventFormat f, Map<String, String> strings, Map<String, Integer> ints) {
        ByteBuffer p = ByteBuffer.allocate(512).order(ByteOrder.LITTLE_ENDIAN);
        p.putShort(0, (short) f.id()).putInt(4, 1);
        int tail = f.fixedSize();
        for (Map.Entry<String, String> e : strings.entrySet()) {
            Field fd = f.field(e.getKey());
            byte[] b = (e.getValue() + "\0").getBytes();
            if (fd.kind() == FieldKind.DYNAMIC_STRING) {
                p.putInt(fd.offset(), (b.length << 16) | tail);
                p.put(tail, b);
                tail += b.length;
            } else {
                p.put(fd.offset(), b);
            }
        }
        ints.forEach((n, v) -> p.putInt(f.field(n).offset(), v));
        recordLength = tail;
        return p;
    }

    static List<String> taskItems(List<ContextMessage> sent) {
        List<String> out = new ArrayList<>();
        for (ContextMessage m : sent) {
            if (m.kind() != FrameKind.PROCESS) {
                continue;
            }
            for (ContextMessage.Item i : m.all(ContextMessage.PROCESS_TASK)) {
                ByteBuffer b = i.buffer();
                out.add(b.getInt(0) + "/" + b.getInt(4) + "/" + new String(i.value(), 8, i.value().length - 8));
            }
        }
        return out;
    }

    @Test
    void capsBoundWhatIsTracked() throws IOException {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        EventFormat sw = snap.format("sched", "sched_switch");
        List<ContextMessage> sent = new ArrayList<>();
        ContextPlanner t = new ContextPlanner(context(List.of(), pid -> null).sources(), (m, cpu, time, lost, repeat) -> sent.add(m),
                10, 10, 10);
        ByteBuffer p = ByteBuffer.allocate(sw.fixedSize()).order(ByteOrder.LITTLE_ENDIAN);
        p.putShort(0, (short) sw.id());
        for (int pid = 1; pid <= 100; pid++) {
            p.putInt(4, pid).putInt(sw.field("prev_pid").offset(), pid).putInt(sw.field("next_pid").offset(), pid);
            t.beforeEvent(p, 0, p.capacity(), sw, 0, pid);
        }
        assertEquals(10, t.tasks(), "at most 10 tasks");
        assertTrue(t.dropped() >= 90, "the rest counted: " + t.dropped());
        assertEquals(10, taskItems(sent).size());
    }

    /** A frame output that keeps everything in a pcapng file. */
    static PcapngOutput pcapng(Path file) throws IOException {
        return new PcapngOutput(file.toString(), FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING), false, SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "test", FrameEncoder.MAX_FRAME));
    }

    @Test
    void aFileRendersFromItsOwnContextAsTheKernelContextDoes(@TempDir Path dir) throws IOException {
        List<EventRecord> records = FixtureRecords.load();
        CaptureContext ctx = context(records, pid -> new ContextPlanner.Task(pid, "task" + pid));
        Path file = dir.resolve("f.pcapng");
        try (FrameSink sink = new FrameSink(List.of(pcapng(file)), ctx)) {
            sink.begin(1);
            for (int i = 0; i < records.size(); i++) {
                EventRecord r = records.get(i);
                ByteBuffer payload = r.payload().duplicate().order(r.layout().byteOrder());
                sink.event(payload, payload.position(), payload.remaining(), r.format(), r.cpu(), time(r), false,
                        i == 5 ? 3 : 0);
            }
            sink.lostAtEnd(0, 4);
            sink.flush();
        }
        KernelTextRenderer direct = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), "mono"), LAYOUT,
                new PrintContext(ctx.symbols().get(), ctx.printk(), 250, KernelEnums.empty(), KernelVariables.empty()));
        int n = 0;
        int same = 0;
        Set<String> differ = new HashSet<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            Iterator<RecordInput.Event> it = in.events();
            for (EventRecord r : records) {
                assertTrue(it.hasNext(), "event " + n + " missing");
                RecordInput.Event e = it.next();
                EventRecord back = e.record();
                assertEquals(r.format().id(), back.format().id());
                assertEquals(time(r), e.timeNs(), "the frame's time is the event's wall time");
                String want = direct.body(r);
                String got = in.renderer().body(back);
                if (want.equals(got)) {
                    same++;
                } else if (differ.size() < 10) {
                    differ.add(r.format().fullName() + ": " + want + " | " + got);
                }
                n++;
            }
            assertTrue(!it.hasNext());
            assertEquals(Map.of(0, 7L), in.context().lost(), "LOST before event 5 (3) and at the end (4)");
            for (EventRecord r : records) {
                assertTrue(!in.cmdlines().comm(r.pid()).equals("<...>"), "pid " + r.pid() + " named");
            }
        }
        System.out.printf("round trip: %d/%d records render alike%n", same, n);
        assertEquals(n, same, "differ: " + differ);
    }

    @Test
    void repeatsResendWhatIsKnown() throws IOException {
        List<EventRecord> records = FixtureRecords.load().subList(0, 2000);
        Map<String, Integer> first = new LinkedHashMap<>();
        Map<String, Integer> repeated = new LinkedHashMap<>();
        ContextPlanner t = new ContextPlanner(context(records, pid -> new ContextPlanner.Task(pid, "x")).sources(),
                (m, cpu, time, lost, repeat) -> (repeat ? repeated : first).merge(m.kind().name(), m.items().size(),
                        Integer::sum));
        t.begin(0);
        Frames fr = new Frames(records);
        for (int i = 0; i < records.size(); i++) {
            EventRecord r = records.get(i);
            t.beforeEvent(fr.buf, fr.offsets[i] + WireHeader.SIZE, fr.lengths[i] - WireHeader.SIZE, r.format(), r.cpu(),
                    time(r));
        }
        t.repeat(5);
        assertEquals(first.get("CAPTURE"), repeated.get("CAPTURE"));
        assertEquals(first.get("FORMAT"), repeated.get("FORMAT"));
        assertEquals(t.tasks(), repeated.get("PROCESS"), "one item per task");
        assertEquals(first.getOrDefault("SYMBOLS", 0), repeated.getOrDefault("SYMBOLS", 0));
    }
}
