package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * What {@link ContextPlanner} sends for a file import is what the text needs: a {@link WireContext}
 * fed only its messages renders every fixture record (every kind of event of this machine) exactly
 * as the writer's full context does, and every address, string and task is described once; and how
 * a file and a live capture name tasks.
 */
class ContextPlannerTest {
    @Test
    void theMessagesRenderEveryRecordAsTheWritersContext() {
        List<EventRecord> recs = FixtureRecords.load();
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        // a kernel where every address is some symbol's, and every pointer a printk string
        SymbolResolver all = a -> a == 0 ? null
                : new SymbolResolver.Symbol("sym_" + Long.toHexString(a >>> 8), a & ~0xffL, 0x100, (a & 0x100) != 0 ? "mod" : null);
        PrintContext full = new PrintContext(all, PrintkFormats.view(new AbstractMap<>() {
            @Override
            public String get(Object k) {
                return "str" + Long.toHexString((Long) k);
            }

            @Override
            public Set<Entry<Long, String>> entrySet() {
                return Set.of();
            }
        }), 250, src.context().enums(), src.context().variables());
        ContextPlanner sight = ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(src.layout(), full, src.tasks(),
                pid -> pid + 1, src.formatText(), null));
        WireContext ctx = new WireContext();
        ctx.apply(ContextMessages.capture(new ContextMessages.Capture("t", null, null, null, "local", 0, 0, src.layout(),
                null, null, ContextMessages.constants(full.hz(), full.variables()), "test", List.of())), WireHeader.NO_CPU);
        Set<Long> described = new HashSet<>();
        Set<Integer> tasks = new HashSet<>();
        int symbolMessages = 0;
        for (EventRecord r : recs) {
            for (ContextMessage m : sight.before(r)) {
                // through the bytes, as a reader gets them
                ctx.apply(ContextMessage.parse(m.kind(), m.toBytes()).message(), WireHeader.NO_CPU);
                if (m.kind() == FrameKind.SYMBOLS) {
                    symbolMessages++;
                    for (ContextMessage.Item i : m.items()) {
                        assertTrue(described.add(ByteBuffer.wrap(i.value()).getLong(0) ^ i.type()), "described once");
                    }
                }
                if (m.kind() == FrameKind.PROCESS) {
                    for (ContextMessage.Item i : m.items()) {
                        assertTrue(tasks.add(ByteBuffer.wrap(i.value()).getInt(0)), "task described once");
                        assertEquals(ByteBuffer.wrap(i.value()).getInt(0) + 1, ByteBuffer.wrap(i.value()).getInt(4), "tgid");
                    }
                }
            }
        }
        KernelTextRenderer want = new KernelTextRenderer(new TraceLinePrefix(src.tasks(), "local"), src.layout(), full);
        KernelTextRenderer got = new KernelTextRenderer(new TraceLinePrefix(ctx.cmdlines(), ctx.clock()), ctx.layout(),
                ctx.printContext());
        int symbolic = 0;
        for (EventRecord r : recs) {
            String w = want.line(r);
            assertEquals(w, got.line(r));
            if (w.contains("sym_")) {
                symbolic++;
            }
        }
        assertTrue(symbolic > 100, "records that print symbols: " + symbolic);
        assertEquals(described.size(), sight.symbolItems());
        assertEquals(tasks.size(), sight.tasks());
        assertTrue(ctx.problems().isEmpty(), ctx.problems().toString());
        assertEquals(recs.stream().map(r -> r.format().id()).distinct().count(), ctx.catalog().formats().size());
        System.out.printf("first sight: %d records, %d formats, %d symbols and strings in %d messages, %d tasks: "
                + "all lines equal%n", recs.size(), ctx.catalog().formats().size(), described.size(), symbolMessages,
                tasks.size());
    }

    /**
     * The same plans name tasks two ways: a file by its saved names only (every task field, the
     * recording task first, pid 0 and unknown pids not described, each pid once), a live capture
     * by the record's comm fields first (a known pid again when a record names it otherwise).
     */
    @Test
    void aFileNamesTasksByItsNamesALiveCaptureByTheRecords() {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        KernelLayout layout = snap.layout();
        EventFormat sw = snap.format("sched", "sched_switch");
        EventFormat exec = snap.format("sched", "sched_process_exec");
        SavedCmdlines names = SavedCmdlines.view(Map.of(7, "init", 100, "sh", 200, "ls", 300, "old"));
        ContextPlanner file = ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(layout, PrintContext.empty(),
                names, null, f -> "", null));
        assertEquals(List.of("7/-1/init", "100/-1/sh", "200/-1/ls"),
                tasks(file.before(switchRecord(sw, layout, 7, 100, "bash", 200, "cat"))),
                "the saved names, not the record's comms; common_pid first");
        assertEquals(List.of("300/-1/old"), tasks(file.before(execRecord(exec, layout, 7, 300, 100))),
                "exec's pid and old_pid are task fields too; known pids not again");
        assertEquals(List.of(), tasks(file.before(switchRecord(sw, layout, 0, 555, "x", 100, "renamed"))),
                "pid 0 and pids the file does not name are not described; no renames");
        ContextPlanner.Tasks host = pid -> new ContextPlanner.Task(pid, "host" + pid);
        ContextPlanner live = ContextPlanner.forRecords(new ContextPlanner.Sources(null, layout, f -> "", null, null,
                PrintkFormats.empty(), null, 0, KernelVariables.empty(), host, null, ContextPlanner.Naming.LIVE));
        assertEquals(List.of("100/100/bash", "200/200/cat", "7/7/host7"),
                tasks(live.before(switchRecord(sw, layout, 7, 100, "bash", 200, "cat"))),
                "the record's comms, then the recording task from the host");
        assertEquals(List.of("200/200/grep"), tasks(live.before(switchRecord(sw, layout, 7, 100, "bash", 200, "grep"))),
                "a known task named otherwise is described again");
    }

    private static List<String> tasks(List<ContextMessage> messages) {
        List<String> out = new ArrayList<>();
        for (ContextMessage m : messages) {
            if (m.kind() == FrameKind.PROCESS) {
                for (ContextMessage.Item i : m.items()) {
                    ByteBuffer b = ByteBuffer.wrap(i.value());
                    out.add(b.getInt(0) + "/" + b.getInt(4) + "/"
                            + new String(i.value(), 8, i.value().length - 8, StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    private static EventRecord switchRecord(EventFormat f, KernelLayout layout, int common, int prev, String prevComm,
                                            int next, String nextComm) {
        ByteBuffer b = ByteBuffer.allocate(f.fixedSize()).order(layout.byteOrder());
        b.putShort(0, (short) f.id()).putInt(f.field("common_pid").offset(), common);
        b.putInt(f.field("prev_pid").offset(), prev).putInt(f.field("next_pid").offset(), next);
        b.put(f.field("prev_comm").offset(), prevComm.getBytes(StandardCharsets.UTF_8));
        b.put(f.field("next_comm").offset(), nextComm.getBytes(StandardCharsets.UTF_8));
        return new EventRecord(f, layout, 0, 1, b);
    }

    private static EventRecord execRecord(EventFormat f, KernelLayout layout, int common, int pid, int oldPid) {
        ByteBuffer b = ByteBuffer.allocate(f.fixedSize()).order(layout.byteOrder());
        b.putShort(0, (short) f.id()).putInt(f.field("common_pid").offset(), common);
        b.putInt(f.field("pid").offset(), pid).putInt(f.field("old_pid").offset(), oldPid);
        return new EventRecord(f, layout, 0, 2, b);
    }
}
