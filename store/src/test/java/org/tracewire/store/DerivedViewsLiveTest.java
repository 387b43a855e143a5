package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.RingBufferDrain;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.LoopbackTraffic;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * The derived views of a live capture against independent computations from its records
 * ({@link ViewOracle#assertViews}): the kernel records sched switches and wakeups,
 * {@code raw_syscalls} and {@code syscalls:sys_*_X} at once, hard irqs and softirqs in an instance
 * of our own while loopback TCP (NET_RX/NET_TX), a file written and synced (the disk's interrupt),
 * sleeps (TIMER, HRTIMER) and short processes (sched_wakeup_new) run; the buffers are drained and
 * written as a pcapng with the kernel's context, as a capture writes one. Every kind of pair must
 * occur, syscalls of both sources.
 */
@Tag("live")
class DerivedViewsLiveTest {
    private static final List<String> EVENTS = List.of("sched:sched_switch", "sched:sched_wakeup",
            "sched:sched_wakeup_new", "raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "syscalls:sys_enter_openat",
            "syscalls:sys_exit_openat", "syscalls:sys_enter_read", "syscalls:sys_exit_read", "syscalls:sys_enter_write",
            "syscalls:sys_exit_write", "syscalls:sys_enter_fsync", "syscalls:sys_exit_fsync",
            "irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit");

    @TempDir
    Path dir;

    @Test
    void viewsOfALiveCaptureEqualTheTrackerAndTheRecords() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        List<EventRecord> records = new ArrayList<>();
        long missed = 0;
        ContextPcapng.Source source;
        try (TracefsInstance inst = TestInstances.create(top, "views")) {
            inst.setTracingOn(false);
            inst.setBufferSizeKb(65536);
            for (String e : EVENTS) {
                String[] se = e.split(":");
                inst.setEnabled(se[0], se[1], true);
            }
            inst.setTracingOn(true);
            workload();
            inst.setTracingOn(false);
            Map<Integer, EventFormat> byId = top.formats().byId();
            SubBufferLayout layout = SubBufferLayout.of(inst.headerPage(), inst.headerEvent(), inst.layout());
            List<SubBuffer> pages = RingBufferDrain.drain(inst, layout);
            for (SubBuffer p : pages) {
                missed += p.missedEvents() ? 1 : 0;
            }
            for (RawRecord r : RingBufferDrain.merge(pages)) {
                EventFormat f = byId.get(r.eventId());
                assertNotNull(f, "event id " + r.eventId());
                records.add(new EventRecord(f, inst.layout(), r.cpu(), r.timestamp(), r.payload()));
            }
            source = new ContextPcapng.Source("live", "live views", inst.layout(), KernelContext.of(top),
                    SavedCmdlines.parse(top.read("saved_cmdlines")),
                    f -> top.read("events/" + f.system() + "/" + f.name() + "/format"), top.read("events/header_page"),
                    top.read("events/header_event"), inst.currentClock(), FixturePcapng.EPOCH_NS + 123_456_789L);
        }
        assertEquals(0, missed, "pages after lost events (the buffer is to hold the whole run)");
        assertTrue(records.size() > 10_000, "records: " + records.size());
        Path file = ContextPcapng.write(dir.resolve("live.pcapng"), records, source, Map.of());
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            assertTrue(store.missingViews().isEmpty(), store.missingViews().toString());
            String summary = ViewOracle.assertViews(s, file);
            System.out.println("live, " + records.size() + " events: " + summary);
            List<String> perKind = ViewOracle.rows(s, "SELECT kind, name IS NULL AS raw, count(*) FROM latency"
                    + " GROUP BY ALL ORDER BY ALL");
            for (String kind : List.of("irq|false", "sched_wakeup|true", "softirq|false", "syscall|false", "syscall|true")) {
                assertTrue(perKind.stream().anyMatch(r -> r.startsWith(kind + "|")), kind + " in " + perKind);
            }
            List<String> softirqs = ViewOracle.rows(s, "SELECT DISTINCT name FROM latency WHERE kind = 'softirq'");
            assertTrue(softirqs.containsAll(List.of("TIMER", "NET_RX")), softirqs.toString());
            assertFalse(ViewOracle.rows(s, "SELECT 1 FROM thread_state WHERE state = 'D' LIMIT 1").isEmpty(),
                    "a task waited uninterruptibly (the sync)");
        }
    }

    /** Loopback TCP, a synced file, sleeps and short processes, a few rounds. */
    private void workload() throws Exception {
        Path f = dir.resolve("w");
        for (int round = 0; round < 4; round++) {
            LoopbackTraffic.send(40, 4000);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(256 * 1024));
                ch.force(true);
            }
            Files.readAllBytes(f);
            Thread.sleep(5);
            new ProcessBuilder("true").start().waitFor();
        }
        Files.deleteIfExists(f);
    }
}
