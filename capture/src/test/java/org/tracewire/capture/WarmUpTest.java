package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.HeaderEvent;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferBuilder;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextPlanner;

/**
 * The capture engine's JIT warm-up ({@link WarmUp#run}) on the formats of this kernel's
 * snapshot: one round emits every synthetic record of every CPU once, through the context check
 * (which asks about this process's task), and a longer budget runs whole rounds.
 */
class WarmUpTest {
    static final SubBufferLayout LAYOUT = new SubBufferLayout(ContextTrackerTest.LAYOUT, 0, 8, 8, 16, 4096,
            HeaderEvent.standard());

    static Map<Integer, EventFormat> formats(String... names) {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        Map<Integer, EventFormat> m = new HashMap<>();
        for (String n : names) {
            String[] p = n.split(":");
            EventFormat f = snap.format(p[0], p[1]);
            m.put(f.id(), f);
        }
        return m;
    }

    /** Records in the warm-up's pages for these CPUs, per event id, read back with {@link SubBuffer}. */
    static Map<Integer, Long> recordsPerRound(Map<Integer, EventFormat> formats, List<Integer> cpus) {
        Map<Integer, Long> n = new TreeMap<>();
        for (int i = 0; i < cpus.size(); i++) {
            SubBufferBuilder b = new SubBufferBuilder(LAYOUT);
            // the same packing as the engine's: every event in turn, WarmUp.PAGES full pages per CPU
            List<ByteBuffer> payloads = new ArrayList<>();
            for (EventFormat f : formats.values()) {
                if (!b.fitsEmptyPage(Math.max(8, f.fixedSize()))) {
                    continue; // left out by the engine too
                }
                payloads.add(ByteBuffer.allocate(Math.max(8, f.fixedSize())).order(LAYOUT.kernel().byteOrder())
                        .putShort(0, (short) f.id()));
            }
            int pages = 0;
            long k = 0;
            while (pages < WarmUp.PAGES) {
                ByteBuffer p = payloads.get((int) (k % payloads.size())).duplicate();
                if (!b.isOpen()) {
                    b.start(k, 0);
                }
                if (!b.tryAdd(k, p)) {
                    for (RawRecord r : SubBuffer.decode(b.finish(), LAYOUT, cpus.get(i)).records()) {
                        n.merge(r.eventId(), 1L, Long::sum);
                    }
                    pages++;
                    continue;
                }
                k++;
            }
        }
        return n;
    }

    @Test
    void oneRoundEmitsEveryRecordOnceThroughTheContextCheck() throws Exception {
        Map<Integer, EventFormat> formats = formats("sched:sched_switch", "sched:sched_wakeup",
                "syscalls:sys_enter_getppid", "syscalls:sys_exit_getppid");
        List<Integer> cpus = List.of(0, 1);
        Set<Integer> asked = ConcurrentHashMap.newKeySet();
        CaptureContext context = ContextTrackerTest.context(List.of(), pid -> {
            asked.add(pid);
            return new ContextPlanner.Task(pid, "warm");
        });
        long perRound = recordsPerRound(formats, cpus).values().stream().mapToLong(Long::longValue).sum();
        assertTrue(perRound > 2 * WarmUp.PAGES * 40, perRound + " records in a round");

        long one = WarmUp.run(LAYOUT, formats, ClockSync.none(), context, cpus, 1);
        assertEquals(perRound, one, "one round: every record of every CPU's pages, once");
        assertTrue(asked.contains((int) ProcessHandle.current().pid()),
                "the context check asked about the synthetic records' task, this process: " + new TreeSet<>(asked));

        long more = WarmUp.run(LAYOUT, formats, ClockSync.none(), null, cpus, 50_000_000L);
        assertTrue(more >= perRound && more % perRound == 0, more + " records: whole rounds of " + perRound);
        List<Integer> many = IntStream.range(0, 64).boxed().toList();
        assertEquals(recordsPerRound(formats, many.subList(0, WarmUp.CPUS)).values().stream()
                .mapToLong(Long::longValue).sum(), WarmUp.run(LAYOUT, formats, ClockSync.none(), null, many, 1),
                "64 CPUs: pages for the first " + WarmUp.CPUS + " only");
        assertEquals(0, WarmUp.run(LAYOUT, formats, ClockSync.none(), null, cpus, 0), "budget 0: none");
        // an event whose fixed part is larger than a page is left out, the others still warm up
        EventFormat any = formats.values().iterator().next();
        EventFormat huge = new EventFormat("test", "huge", 4000, any.commonFields(), List.of(
                new Field("char[5000]", "blob", 8, 5000, false, 5000,
                        FieldKind.ARRAY, false, false)), any.printFmt());
        assertEquals(0, WarmUp.run(LAYOUT, Map.of(4000, huge), ClockSync.none(), null, cpus, 1),
                "only an event too large for a page: nothing to warm up with");
        Map<Integer, EventFormat> withHuge = new HashMap<>(formats);
        withHuge.put(4000, huge);
        assertEquals(recordsPerRound(withHuge, cpus).values().stream().mapToLong(Long::longValue).sum(),
                WarmUp.run(LAYOUT, withHuge, ClockSync.none(), null, cpus, 1),
                "the large event left out, every record of the others emitted");
    }
}
