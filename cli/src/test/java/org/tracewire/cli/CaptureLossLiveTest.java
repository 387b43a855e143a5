package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.capture.Capture;
import org.tracewire.capture.CaptureRun;
import org.tracewire.capture.CpuStats;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameKind;

/**
 * Every lost event is counted, exactly, per CPU: the same heavy load (one million 1-byte reads
 * and writes by dd, traced at sys_enter_read/write) overruns the smallest ring buffer the kernel
 * gives ({@code --buffer-kb 1}), and then, per CPU, records read + lost = the events the kernel
 * tried to record (its {@code per_cpu/cpuN/stats}: read events + overrun + commit overrun +
 * dropped, none left unread), the event frames of that CPU = its records, its LOST context messages
 * (before its next event, and at the end for a loss after its last one) sum to its loss; the pcapng
 * drop counts (the LOST frames' EPBs) = the LOST counts, the ISB's {@code isb_ifdrop} = the total
 * loss; the summary line has no "unknown". With a 256 MiB buffer the same load loses nothing.
 */
@Tag("live")
class CaptureLossLiveTest {
    /**
     * @param frames      event frames of the CPU
     * @param lostBefore  events its LOST messages report before one of its event frames
     * @param lostAtEnd   events its LOST messages report after its last event frame
     * @param epbDrops    the pcapng drop counts of its frames
     */
    record PerCpu(long frames, long lostBefore, long lostAtEnd, long epbDrops) {
        long lost() {
            return lostBefore + lostAtEnd;
        }
    }

    record Result(Capture.Summary summary, String line, Map<Integer, PerCpu> perCpu, long packets, long events,
                  long isbDrops, long isbReceived) {
    }

    static final List<EventSelection> READ_WRITE = List.of(new EventSelection("syscalls", "sys_enter_read", null),
            new EventSelection("syscalls", "sys_enter_write", null));
    static final List<String> DD = List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=1000000");
    /** A tight getppid loop for 3 s, one per CPU: small records that fill pages to the last byte. */
    static final List<String> GETPPID = List.of("sh", "-c", "for i in 1 2; do timeout 3 python3 -c '"
            + "import os\nwhile True: os.getppid()' & done; wait");

    static Result capture(Path file, int bufferKb) throws Exception {
        return capture(file, bufferKb, READ_WRITE, DD);
    }

    static Result capture(Path file, int bufferKb, List<EventSelection> events, List<String> workload) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        LiveWorkload load = LiveWorkload.start(top.root(), 0.5, workload);
        CaptureRun.Options o = new CaptureRun.Options(events, 6, 0, null, null, file, bufferKb, "mono",
                Ethernet.DEFAULT_MAX_FRAME, 0, 0);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // at most 6 s, ended when the workload ends (then every event it made is in the buffer)
        Capture.Summary s = CaptureRun.run(top, o, new PrintWriter(err, true, StandardCharsets.UTF_8), load::ended);
        load.close();
        String line = s.describe();
        System.out.println("buffer " + bufferKb + " KiB: " + line);
        for (CpuStats c : s.cpus()) {
            System.out.println("  " + c);
        }
        // frame by frame, keeping none: the load is every process's read()/write(), so a busy host
        // makes millions of frames (a list of them all ran a 2 GiB test heap out)
        Map<Integer, long[]> acc = new TreeMap<>();
        long[] packets = {0};
        List<PcapngReader.Block> isbs = new ArrayList<>();
        WireFrames.forEach(Files.readAllBytes(file), d -> {
            packets[0]++;
            long[] a = acc.computeIfAbsent(d.frame().header().cpu(), k -> new long[4]);
            a[3] += d.packet().dropCount();
            if (d.isEvent()) {
                a[0]++;
                a[1] += a[2]; // what was pending came before this event
                a[2] = 0;
            } else if (d.kind() == FrameKind.LOST) {
                a[2] += d.lost();
            }
        }, b -> {
            if (b.type() == 5) { // Interface Statistics Block
                isbs.add(b);
            }
        });
        Map<Integer, PerCpu> perCpu = new TreeMap<>();
        acc.forEach((cpu, a) -> perCpu.put(cpu, new PerCpu(a[0], a[1], a[2], a[3])));
        assertEquals(1, isbs.size(), "one Interface Statistics Block");
        PcapngReader.Block isb = isbs.get(0);
        long isbDrops = option64(isb, 5); // isb_ifdrop
        long isbRecv = option64(isb, 4); // isb_ifrecv
        // other developers' captures come and go on this host: compare what is ours
        HostState after = HostState.of(top);
        assertEquals(before.settings(), after.settings(), "top-level settings changed");
        assertFalse(after.instances().contains("tracewire-" + ProcessHandle.current().pid()), "instance left behind");
        long eventFrames = perCpu.values().stream().mapToLong(PerCpu::frames).sum();
        return new Result(s, line, perCpu, packets[0], eventFrames, isbDrops, isbRecv);
    }

    private static long option64(PcapngReader.Block b, int code) {
        return ByteBuffer.wrap(b.options().get(code).get(0)).order(ByteOrder.nativeOrder()).getLong();
    }

    /** The per-CPU identities every capture must satisfy, loss or not. */
    static void assertExact(Result r) {
        Capture.Summary s = r.summary();
        assertFalse(r.line().contains("unknown"), r.line());
        assertEquals(s.emitted(), r.events(), "an event frame per event emitted");
        assertEquals(s.frames(), r.packets(), "every frame in the file");
        assertEquals(s.read() - s.namingRead(), s.emitted(), "every record read was emitted (no limit, known formats),"
                + " but those read only to name tasks");
        for (CpuStats c : s.cpus()) {
            RingBufferStats k = c.kernel();
            assertNotNull(k, "kernel stats of cpu" + c.cpu());
            assertEquals(0, k.entries(), "cpu" + c.cpu() + ": events left unread " + k);
            assertEquals(k.readEvents(), c.records(), "cpu" + c.cpu() + ": records read vs the kernel's read events " + k);
            assertEquals(k.lost(), c.lost(), "cpu" + c.cpu() + ": lost vs overrun + commit overrun + dropped " + k);
            assertEquals(k.attempted(), c.records() + c.lost(), "cpu" + c.cpu() + ": read + lost vs the kernel's count");
            assertTrue(c.agreesWithKernel(), c.toString());
            PerCpu p = r.perCpu().getOrDefault(c.cpu(), new PerCpu(0, 0, 0, 0));
            assertEquals(c.records() - c.named(), p.frames(), "cpu" + c.cpu() + ": event frames vs records (but those"
                    + " read only to name tasks)");
            assertEquals(c.lost(), p.lost(), "cpu" + c.cpu() + ": LOST messages vs lost");
            assertEquals(c.lostAfterLast(), p.lostAtEnd(), "cpu" + c.cpu() + ": LOST after the last event frame");
            assertEquals(p.lost(), p.epbDrops(), "cpu" + c.cpu() + ": EPB drop counts vs the LOST counts");
        }
        assertEquals(s.lost(), r.isbDrops(), "ISB isb_ifdrop vs total lost");
        assertEquals(r.packets() + s.lost(), r.isbReceived(), "ISB isb_ifrecv = packets + drops");
        assertTrue(s.agreesWithKernel());
        assertTrue(r.line().contains("read + lost = the kernel's count on every CPU"), r.line());
    }

    @Test
    void theSmallestBufferLosesEventsAndEveryOneIsCounted(@TempDir Path dir) throws Exception {
        Result r = capture(dir.resolve("tiny.pcapng"), 1);
        System.out.println("  frames per CPU " + r.perCpu() + ", ISB drops " + r.isbDrops());
        assertTrue(r.summary().lost() > 0, "the smallest buffer under this load must lose events: " + r.line());
        assertExact(r);
        long before = r.perCpu().values().stream().mapToLong(PerCpu::lostBefore).sum();
        assertTrue(before > 0, "LOST messages before the next events carry the loss: " + r);
    }

    @Test
    void fullPagesWithoutStoredCountsAreCountedToo(@TempDir Path dir) throws Exception {
        Result r = capture(dir.resolve("loop.pcapng"), 1,
                List.of(new EventSelection("syscalls", "sys_enter_getppid", null)), GETPPID);
        long statsReads = r.summary().cpus().stream().mapToLong(CpuStats::statsReads).sum();
        System.out.println("  frames per CPU " + r.perCpu() + ", ISB drops " + r.isbDrops() + ", stats reads " + statsReads);
        assertTrue(r.summary().lost() > 0, "the smallest buffer under a getppid loop must lose events: " + r.line());
        assertExact(r);
    }

    @Test
    void anAmpleBufferLosesNothing(@TempDir Path dir) throws Exception {
        Result r = capture(dir.resolve("ample.pcapng"), 262144);
        assertTrue(r.summary().emitted() > 1_000_000, "the load produced only " + r.summary().emitted() + " events");
        assertEquals(0, r.summary().lost(), "lost with an ample buffer: " + r.line());
        assertExact(r);
    }
}
