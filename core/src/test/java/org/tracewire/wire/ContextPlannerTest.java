package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * What {@link ContextPlanner} sends is what the text needs: a {@link WireContext} fed only its messages
 * renders every fixture record (every kind of event of this machine) exactly as the writer's full
 * context does, and every address, string and task is described once.
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
        ContextPlanner sight = ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(src.layout(), full, src.tasks(), pid -> pid + 1, src.formatText(), null));
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
}
