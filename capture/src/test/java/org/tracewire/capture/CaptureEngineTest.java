package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.posix.CpuAffinity;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.ProcThreads;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireHeader;

class CaptureEngineTest {
    /** Collects what the engine emits. */
    static final class ListSink implements EventSink {
        final List<CapturedEvent> events = new ArrayList<>();

        @Override
        public void accept(CapturedEvent event) {
            events.add(event);
        }

        @Override
        public void close() {
        }
    }

    static long kernelStat(Tracefs inst, int cpu, String key) {
        for (String line : inst.read("per_cpu/cpu" + cpu + "/stats").split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).strip());
            }
        }
        throw new AssertionError("no '" + key + "' in per_cpu/cpu" + cpu + "/stats");
    }

    /**
     * A live capture under a workload: the engine emits, in wall-time order, exactly as many
     * records per CPU as the kernel says were read ({@code per_cpu/cpuN/stats}, "read events"),
     * with per-CPU sequence numbers 0, 1, 2, … and wall times near now.
     */
    @Test
    @Tag("live")
    void emitsEveryRecordInTimeOrder() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        ListSink sink = new ListSink();
        long startWall = ClockSync.epochNanos(Instant.now());
        try (CaptureSession session = CaptureSession.open(top, List.of(
                new EventSelection("sched", "sched_switch", null),
                new EventSelection("sched", "sched_wakeup", null),
                new EventSelection("syscalls", "sys_enter_openat", null)), 1024, "mono", List.of())) {
            // nothing excluded: the workload below is this JVM's children, which the default exclusion
            // of this process (event-fork) would leave out, so a quiet machine gave under 100 events
            var inst = session.instance();
            assertTrue(session.clock().measured());
            Map<Integer, Long> readBefore = new HashMap<>(); // the clock sync's markers were read already
            for (int c : inst.cpus()) {
                readBefore.put(c, kernelStat(inst, c, "read events"));
            }
            CaptureEngine engine = new CaptureEngine(inst, session.layout(), top.formats().byId(), session.clock(),
                    null, List.of(sink));
            engine.start();
            session.start();
            for (int i = 0; i < 30; i++) {
                new ProcessBuilder("sh", "-c", "cat /proc/version > /dev/null").start().waitFor();
            }
            session.stop();
            engine.stop();
            long total = 0;
            for (CpuStats s : engine.stats()) {
                assertEquals(kernelStat(inst, s.cpu(), "read events") - readBefore.get(s.cpu()), s.records(),
                        "cpu " + s.cpu());
                total += s.records();
            }
            assertEquals(total, sink.events.size());
            assertEquals(total, engine.emitted());
            assertTrue(total > 100, "only " + total + " events");
        }
        long endWall = ClockSync.epochNanos(Instant.now());
        Map<Integer, Long> nextSeq = new HashMap<>();
        long prev = Long.MIN_VALUE;
        for (CapturedEvent e : sink.events) {
            assertTrue(e.wallNs() >= prev, "out of order at seq " + e.sequence());
            prev = e.wallNs();
            assertTrue(e.wallNs() > startWall - 1_000_000_000L && e.wallNs() < endWall, "wall time off");
            long expected = nextSeq.getOrDefault(e.record().cpu(), 0L);
            assertEquals(expected, e.sequence());
            nextSeq.put(e.record().cpu(), expected + 1);
        }
    }

    /** An engine over the session's instance, started, its records going to a {@link ListSink}. */
    static CaptureEngine startedEngine(Tracefs top, CaptureSession session) throws IOException {
        CaptureEngine engine = new CaptureEngine(session.instance(), session.layout(), top.formats().byId(),
                session.clock(), null, List.of(new ListSink()));
        engine.start();
        return engine;
    }

    /** Waits up to 5 s until the engine's pinned drainers satisfy {@code ok}; returns whether they do. */
    static boolean awaitPinned(CaptureEngine engine, Predicate<List<Integer>> ok)
            throws InterruptedException {
        long until = System.nanoTime() + 5_000_000_000L;
        while (!ok.test(engine.pinnedReaders()) && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        return ok.test(engine.pinnedReaders());
    }

    /** The CPUs this JVM may run on, at least two, else the test is skipped (or fails on CI). */
    static BitSet twoCpus() {
        BitSet allowed = CpuAffinity.get(0);
        if (allowed.cardinality() < 2) {
            Prerequisites.system().unmet("needs at least two CPUs to run on, has " + allowed);
        }
        return allowed;
    }

    /**
     * Each CPU's drainer runs on that CPU (it copies sub-buffers the kernel just wrote there),
     * as the kernel reports the thread's affinity in /proc; once stopped, none counts as pinned.
     */
    @Test
    @Tag("live")
    void readersRunOnTheirOwnCpu() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        BitSet allowed = twoCpus();
        try (CaptureSession session = CaptureSession.open(top, List.of(
                new EventSelection("sched", "sched_switch", null)), 1024, "mono")) {
            var inst = session.instance();
            CaptureEngine engine = startedEngine(top, session);
            try {
                awaitPinned(engine, pinned -> pinned.size() >= allowed.cardinality());
                for (int cpu : inst.cpus()) {
                    if (allowed.get(cpu)) {
                        BitSet own = new BitSet();
                        own.set(cpu);
                        assertEquals(own, ProcThreads.cpusAllowed(ProcThreads.idNamed("tracewire-read" + cpu)),
                                "cpu " + cpu);
                        assertTrue(engine.pinnedReaders().contains(cpu), "cpu " + cpu);
                    }
                }
            } finally {
                engine.stop();
            }
            // ended drainers count as pinned no more: the emitter never tries to rescue a thread gone
            assertEquals(List.of(), engine.pinnedReaders());
        }
    }

    /**
     * A pinned drainer whose CPU a real-time task monopolises (a SCHED_FIFO busy loop there; the
     * kernel leaves normal tasks at most 5% of it) is given back every CPU, and the capture ends with
     * every event read or counted lost, per the kernel's stats.
     */
    @Test
    @Tag("live")
    void aStarvedReaderMayRunElsewhere() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        BitSet allowed = twoCpus();
        Prerequisites.requireTool("chrt");
        Prerequisites.requireTool("taskset");
        int busy = allowed.length() - 1;
        try (CaptureSession session = CaptureSession.open(top, List.of(
                new EventSelection("sched", "sched_switch", null),
                new EventSelection("sched", "sched_wakeup", null)), 1024, "mono")) {
            CaptureEngine engine = startedEngine(top, session);
            try {
                session.start();
                assertTrue(awaitPinned(engine, pinned -> pinned.contains(busy)),
                        "the reader of cpu " + busy + " was never pinned");
                // SCHED_FIFO on that CPU for 2.5 s; the test (a normal task elsewhere) ends it
                Process hog = new ProcessBuilder("taskset", "-c", String.valueOf(busy), "chrt", "-f", "10",
                        "sh", "-c", "while :; do :; done").redirectErrorStream(true).start();
                try {
                    if (hog.waitFor(2500, TimeUnit.MILLISECONDS)) {
                        fail("the busy loop ended early: " + new String(hog.getInputStream().readAllBytes()));
                    }
                } finally {
                    hog.destroyForcibly().waitFor();
                }
                assertEquals(List.of(busy), engine.rescuedReaders());
                assertEquals(allowed, ProcThreads.cpusAllowed(ProcThreads.idNamed("tracewire-read" + busy)));
                session.stop();
            } finally {
                engine.stop();
            }
            for (CpuStats s : engine.stats()) {
                assertTrue(s.agreesWithKernel(), s.toString());
            }
        }
    }

    /** Collects the frames written (bare), as copies. */
    static final class ListOutput implements FrameOutput {
        final List<byte[]> frames = new ArrayList<>();
        final List<long[]> meta = new ArrayList<>();

        @Override
        public void write(ByteBuffer frame, long timeNs, long lostBefore) {
            byte[] b = new byte[frame.remaining()];
            frame.get(b);
            frames.add(b);
            meta.add(new long[] {timeNs, lostBefore});
        }

        @Override
        public String describe() {
            return "list";
        }

        @Override
        public void close() {
        }
    }

    /**
     * The reader threads encode the frames, the emitter writes them with their context: each event
     * frame's payload is the record the record sink got at the same place in the stream, the first
     * frame is CAPTURE, every event's FORMAT and its tasks come before it, and every cpu value's
     * frames are numbered 0, 1, 2, … in the order they leave (context frames included).
     */
    @Test
    @Tag("live")
    void framesCarryTheRecordsAndTheirContext() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        ListSink sink = new ListSink();
        ListOutput out = new ListOutput();
        List<EventSelection> events = List.of(
                new EventSelection("sched", "sched_switch", null),
                new EventSelection("sched", "sched_wakeup", null),
                new EventSelection("syscalls", "sys_enter_openat", null));
        try (CaptureSession session = CaptureSession.open(top, events, 1024, "mono")) {
            FrameSink frames = new FrameSink(List.of(out), CaptureContext.live(top, session, "mono"));
            CaptureEngine engine = new CaptureEngine(session.instance(), session.layout(), frames.context().formats(),
                    session.clock(), frames, List.of(sink));
            engine.start();
            session.start();
            // about 4 events a round on a quiet machine (80 for 20 rounds once): enough rounds for well over 100
            for (int i = 0; i < 80; i++) {
                new ProcessBuilder("sh", "-c", "cat /proc/version > /dev/null").start().waitFor();
            }
            session.stop();
            engine.stop();
            assertTrue(sink.events.size() > 100, "only " + sink.events.size() + " events");
            assertEquals(sink.events.size(), frames.events());
            assertEquals(out.frames.size(), frames.frames());
        }
        var assembler = new ContextAssembler();
        var context = new WireContext();
        Map<Integer, Long> nextSeq = new HashMap<>();
        int event = 0;
        for (int i = 0; i < out.frames.size(); i++) {
            var frame = WireDecoder.decodeBare(out.frames.get(i));
            var h = frame.header();
            if (i == 0) {
                assertEquals(FrameKind.CAPTURE, frame.kind(), "CAPTURE first");
            }
            long expected = nextSeq.getOrDefault(h.cpu(), 0L);
            assertEquals(expected, h.sequence(), "frame " + i + " cpu value " + h.cpu());
            nextSeq.put(h.cpu(), expected + 1);
            if (frame.kind() != FrameKind.EVENT) {
                var m = assembler.add(0, frame);
                if (m != null) {
                    context.apply(m.message(), h.cpu());
                }
                continue;
            }
            CapturedEvent e = sink.events.get(event++);
            assertEquals(e.record().cpu(), h.cpu(), "frame " + i);
            assertEquals(e.wallNs(), h.timeNs(), "frame " + i);
            assertEquals(e.wallNs(), out.meta.get(i)[0], "frame " + i);
            assertTrue(h.has(WireHeader.FLAG_LITTLE_ENDIAN) == (e.record().byteOrder()
                    == ByteOrder.LITTLE_ENDIAN));
            byte[] payload = new byte[e.record().length()];
            e.record().payload().duplicate().get(payload);
            byte[] body = new byte[frame.body().remaining()];
            frame.body().duplicate().get(body);
            assertEquals(HexFormat.of().formatHex(payload), HexFormat.of().formatHex(body),
                    "frame " + i + ": the record payload as the ring buffer held it");
            assertTrue(context.format(frame.eventId()) != null, "FORMAT before frame " + i);
            assertTrue(context.tasks().containsKey(e.record().pid()), "PROCESS of " + e.record().pid() + " before frame " + i);
        }
        assertEquals(sink.events.size(), event);
    }
}
