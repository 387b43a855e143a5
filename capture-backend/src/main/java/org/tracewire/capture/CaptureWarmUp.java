package org.tracewire.capture;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.HeaderEvent;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.wire.FrameEncoder;

/**
 * Compiles the capture's per-record path before tracing starts, so the JIT's work does not land in
 * the first second of the trace (on a busy machine that second otherwise loses the traced workload
 * about half a core to the C1/C2 compiler threads and to the not yet compiled emitter).
 *
 * <p>How: a throwaway {@link CaptureEngine} runs over synthetic sub-buffers, one file per CPU of
 * the instance read through the same {@code TracePipeRaw} code, each holding records of the
 * selected events ({@code common_type} = the event's id, {@code common_pid} = this process, the rest
 * zero; record headers packed as {@code events/header_event} says, in the kernel's byte order), into
 * a {@link FrameSink} with the capture's own context and one pcapng output written to
 * {@code /dev/null} through an {@link AsyncFileChannel}: the same classes and branches as a capture
 * into a pcapng file or FIFO. Then waits (at most {@link #MAX_SETTLE_MS} ms) until the JIT has been
 * idle for {@link #QUIET_MS} ms. Nothing of it reaches the capture's outputs or the instance; the
 * instance's {@code per_cpu/cpuN/stats} are only read.
 *
 * <p>Only for captures whose frames are encoded in place ({@link FrameSink#encodesInPlace()}) and
 * without record sinks; system property {@code tracewire.warmupRecords} (records per CPU, default
 * {@value #DEFAULT_RECORDS}; 0 turns it off). A failure here is ignored: the capture then starts
 * cold, as before.
 */
final class CaptureWarmUp {
    /** Records per CPU by default: enough for C2 to compile the per-record methods. */
    static final int DEFAULT_RECORDS = 30_000;
    /** The JIT counts as idle once its total compilation time has not grown for this long, ms. */
    static final int QUIET_MS = 60;
    /** The longest wait for the JIT to go idle after the synthetic records, ms. */
    static final int MAX_SETTLE_MS = 1500;

    private CaptureWarmUp() {
    }

    /** Records per CPU to run ({@code tracewire.warmupRecords}), 0 for none. */
    static int records() {
        try {
            return Math.max(0, Integer.parseInt(System.getProperty("tracewire.warmupRecords",
                    String.valueOf(DEFAULT_RECORDS))));
        } catch (NumberFormatException e) {
            return DEFAULT_RECORDS;
        }
    }

    /**
     * Runs the warm-up when it applies ({@code frames} encodes in place, no record sinks, records
     * per CPU above 0). Never throws: a warm-up that fails leaves the capture as it was.
     *
     * @param session the capture's session (its instance's CPUs, sub-buffer layout and clock)
     * @param formats the selected events' formats by id
     * @param frames  the capture's frame sink (its context is shared, its outputs are not touched)
     * @param sinks   the capture's record sinks
     * @return records the warm-up emitted (0 when it did not run or failed)
     */
    static long runIfUseful(CaptureSession session, Map<Integer, EventFormat> formats, FrameSink frames,
                            List<EventSink> sinks) {
        int perCpu = records();
        if (perCpu == 0 || frames == null || !frames.encodesInPlace() || !sinks.isEmpty() || formats.isEmpty()) {
            return 0;
        }
        try {
            return run(session, formats, frames.context(), perCpu);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return 0;
        }
    }

    private static long run(CaptureSession session, Map<Integer, EventFormat> formats, CaptureContext context,
                            int perCpu) throws IOException, InterruptedException {
        SubBufferLayout layout = session.layout();
        List<Integer> cpus = session.instance().cpus();
        Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> files = new ArrayList<>();
        FrameSink sink = null;
        try {
            long start = session.clock().traceNow() - 10_000_000_000L;
            int maxCpu = 0;
            for (int cpu : cpus) {
                maxCpu = Math.max(maxCpu, cpu);
            }
            Path[] pipes = new Path[maxCpu + 1];
            for (int cpu : cpus) {
                Path f = Files.createTempFile(dir, "tracewire-warmup-cpu" + cpu + "-", ".raw");
                files.add(f);
                writePages(f, layout, List.copyOf(formats.values()), perCpu, start + cpu);
                pipes[cpu] = f;
            }
            FileChannel devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
            PcapngOutput out = new PcapngOutput("warm-up", new AsyncFileChannel(devNull, "/dev/null"), false,
                    SectionInfo.host(), InterfaceInfo.tracewire("tracewire", "warm-up", FrameEncoder.MAX_FRAME));
            sink = new FrameSink(List.of(out), context);
            CaptureEngine engine = new CaptureEngine(session.instance(), layout, formats, session.clock(), sink,
                    List.of());
            engine.start(cpu -> pipes[cpu]);
            for (Path f : files) {
                Files.deleteIfExists(f); // open now: nothing is left behind whatever happens next
            }
            // a final drain from the start: the drainers read every page, then find the file's end
            // and the instance's counters at rest, and stop; the emitter emits all and stops
            engine.stop();
            awaitQuietJit();
            return engine.emitted();
        } finally {
            if (sink != null) {
                try {
                    sink.close();
                } catch (IOException ignored) {
                    // /dev/null
                }
            }
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Waits until the JIT's total compilation time stops growing (or {@link #MAX_SETTLE_MS}). */
    private static void awaitQuietJit() throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long end = System.nanoTime() + MAX_SETTLE_MS * 1_000_000L;
        long last = jit.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        while (System.nanoTime() < end) {
            Thread.sleep(10);
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= QUIET_MS * 1_000_000L) {
                return;
            }
        }
    }

    /**
     * Writes whole sub-buffers of records of {@code formats}, in turn, to {@code file}.
     *
     * @return records written (at least {@code records}, whole pages)
     */
    static long writePages(Path file, SubBufferLayout layout, List<EventFormat> formats, int records, long startTs)
            throws IOException {
        ByteOrder order = layout.kernel().byteOrder();
        HeaderEvent he = layout.headerEvent();
        int size = layout.subBufferSize();
        int pid = (int) ProcessHandle.current().pid();
        ByteBuffer page = ByteBuffer.allocate(size).order(order);
        long written = 0;
        long ts = startTs;
        int next = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (written < records) {
                java.util.Arrays.fill(page.array(), (byte) 0);
                int pos = layout.dataOffset();
                long pageTs = ts;
                int inPage = 0;
                while (true) {
                    EventFormat f = formats.get(next % formats.size());
                    int payload = (Math.max(8, f.fixedSize()) + 3) & ~3;
                    boolean small = payload <= he.maxDataType() * 4;
                    int need = 4 + (small ? 0 : 4) + payload;
                    if (pos + need > size || (inPage > 0 && written + inPage >= records)) {
                        break;
                    }
                    int delta = inPage == 0 ? 0 : 100;
                    ts += delta;
                    int typeLen = small ? payload / 4 : 0;
                    page.putInt(pos, recordHeader(order, he, typeLen, delta));
                    int data = pos + 4;
                    if (!small) {
                        page.putInt(data, payload + 4);
                        data += 4;
                    }
                    put(page, data, f.field("common_type"), f.id());
                    put(page, data, f.field("common_pid"), pid);
                    pos = data + payload;
                    inPage++;
                    next++;
                }
                page.putLong(layout.timestampOffset(), pageTs);
                int length = pos - layout.dataOffset();
                if (layout.commitSize() == 8) {
                    page.putLong(layout.commitOffset(), length);
                } else {
                    page.putInt(layout.commitOffset(), length);
                }
                page.clear();
                while (page.hasRemaining()) {
                    ch.write(page);
                }
                written += inPage;
                ts += 1000;
            }
        }
        return written;
    }

    /** A record header: {@code type_len} in the low bits (little endian) or the high bits (big endian). */
    private static int recordHeader(ByteOrder order, HeaderEvent he, int typeLen, int delta) {
        return order == ByteOrder.BIG_ENDIAN ? (typeLen << he.timeDeltaBits()) | delta
                : (delta << he.typeLenBits()) | typeLen;
    }

    private static void put(ByteBuffer page, int data, Field field, long value) {
        if (field == null) {
            return;
        }
        switch (field.size()) {
            case 1 -> page.put(data + field.offset(), (byte) value);
            case 2 -> page.putShort(data + field.offset(), (short) value);
            case 4 -> page.putInt(data + field.offset(), (int) value);
            case 8 -> page.putLong(data + field.offset(), value);
            default -> { }
        }
    }
}
