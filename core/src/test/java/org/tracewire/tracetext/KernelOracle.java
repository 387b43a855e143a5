package org.tracewire.tracetext;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.LoopbackTraffic;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.RingBufferDrain;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

/**
 * The kernel as the oracle: in an instance of our own, record a mix of events under a workload,
 * stop tracing, read the text {@code trace} (non-consuming), then drain the same buffer through
 * {@code trace_pipe_raw}. The two views of one buffer must render to the same lines. Public for the
 * other modules' oracle tests ({@code report} of a v2 pcapng in cli).
 */
public final class KernelOracle {
    /** What one run captured: the kernel's lines and our decoded records, in the same order. */
    public record Capture(List<String> kernelLines, List<EventRecord> records, List<SubBuffer> pages,
                   SavedCmdlines cmdlines, SavedCmdlines cmdlinesBefore, String clock, FormatCatalog catalog) {
        /**
         * True when the kernel's pid → comm cache named this pid differently just before and just
         * after the text was read: the kernel may have used either name.
         */
        public boolean commChanged(int pid) {
            return !cmdlines.comm(pid).equals(cmdlinesBefore.comm(pid));
        }
    }

    /** The systems the foundation's acceptance names. */
    public static final List<String> SYSTEMS = List.of("sched", "irq", "timer", "syscalls", "kmem", "block", "net",
            "skb", "signal", "workqueue", "writeback");

    private KernelOracle() {
    }

    /** Records {@code systems} in an instance of our own under {@link #workload()}; see the class comment. */
    public static Capture run(Tracefs top, String purpose, List<String> systems, int bufferKb) throws Exception {
        String name = "tracewire-test-" + ProcessHandle.current().pid() + "-" + purpose;
        try (TracefsInstance inst = top.createInstance(name)) {
            inst.setTracingOn(false);
            inst.setOption("nohash-ptr");
            inst.setBufferSizeKb(bufferKb);
            for (String s : systems) {
                inst.write("events/" + s + "/enable", "1");
            }
            inst.setTracingOn(true);
            workload();
            inst.setTracingOn(false);
            SavedCmdlines before = SavedCmdlines.parse(top.read("saved_cmdlines"));
            String text = inst.read("trace");
            SavedCmdlines cmdlines = SavedCmdlines.parse(top.read("saved_cmdlines"));
            FormatCatalog catalog = top.formats();
            Map<Integer, EventFormat> byId = catalog.byId();
            SubBufferLayout layout = SubBufferLayout.of(inst.headerPage(), inst.headerEvent(), inst.layout());
            List<SubBuffer> pages = RingBufferDrain.drain(inst, layout);
            List<EventRecord> records = new ArrayList<>();
            for (RawRecord r : RingBufferDrain.merge(pages)) {
                EventFormat f = byId.get(r.eventId());
                if (f == null) {
                    throw new AssertionError("record of unknown event id " + r.eventId() + " on cpu " + r.cpu());
                }
                records.add(new EventRecord(f, inst.layout(), r.cpu(), r.timestamp(), r.payload()));
            }
            List<String> lines = new ArrayList<>();
            for (String l : text.split("\n")) {
                if (!l.startsWith("#") && !l.isEmpty() && !l.startsWith("CPU:")) {
                    lines.add(l);
                }
            }
            return new Capture(lines, records, pages, cmdlines, before, inst.currentClock(), catalog);
        }
    }

    /** A short mixed workload: files, a block write with fsync, loopback TCP, a signal, sleeps. */
    static void workload() throws Exception {
        Path dir = Files.createTempDirectory("tracewire-oracle");
        try {
            for (int i = 0; i < 20; i++) {
                Path f = dir.resolve("f" + i);
                Files.write(f, new byte[8192 * (i + 1)]);
                Files.readAllBytes(f);
            }
            try (var ch = FileChannel.open(dir.resolve("f0"),
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(4096));
                ch.force(true);
            }
            LoopbackTraffic.send(10, 1000);
            Process p = new ProcessBuilder("sh", "-c", "sleep 0.05; kill -CONT $$; ls / >/dev/null; sync")
                    .inheritIO().start();
            p.waitFor();
            Thread.sleep(20);
        } finally {
            try (var s = Files.list(dir)) {
                for (Path f : s.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
