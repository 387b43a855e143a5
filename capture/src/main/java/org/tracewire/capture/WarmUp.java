package org.tracewire.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferBuilder;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.wire.FrameEncoder;

/**
 * The capture engine's JIT warm-up: before tracing starts, its per-record code runs over synthetic
 * sub-buffers of the capture's events, so that the JIT compiles it then and not in the first traced
 * second, where the compiler would take CPU from the traced workload
 * (docs/decisions/0019-jit-warm-up.md).
 */
public final class WarmUp {
    /**
     * Wall time of the warm-up before a capture's tracing starts, ns: property
     * {@code tracewire.warmUpMs} (default 300; 0 turns it off).
     */
    public static final long DEFAULT_NS = Math.max(0, Long.getLong("tracewire.warmUpMs", 300)) * 1_000_000L;
    /** Synthetic sub-buffers per CPU that one round of the warm-up walks. */
    static final int PAGES = 32;
    /** Most CPUs the warm-up's synthetic pages are for (the first of the capture's). */
    static final int CPUS = 4;

    private WarmUp() {
    }

    /**
     * Runs the emitter over synthetic sub-buffers of the capture's events, into a pcapng output that
     * discards them, for {@code budgetNs} of wall time: the page walk, the merge of the CPUs, the
     * context check and the frame encoding.
     *
     * <p>The synthetic records are of the capture's events ({@link EventFormat#fixedSize()} bytes,
     * {@code common_type} and {@code common_pid} set, the rest zeros), this process's pid as their
     * task, interleaved over {@code cpus} in time order, packed by {@link SubBufferBuilder}. They go
     * through a {@link CaptureEngine} of their own and a {@link FrameSink} of their own with the
     * capture's context (read, not changed) and clock; nothing reaches the capture's outputs, and the
     * capture's engine, numbering and context state are untouched.
     *
     * @param layout   the capture's sub-buffer layout
     * @param formats  the capture's events by id
     * @param clock    the capture's clock (read only)
     * @param context  what the capture's context messages say, or null (none sent)
     * @param cpus     the capture's CPUs (the first {@link #CPUS} get synthetic pages)
     * @param budgetNs wall time to run, ns; at least one round runs when positive
     * @return records the warm-up emitted (0 when there was nothing to warm up)
     * @throws IOException when the engine failed on the synthetic records (a bug: the capture would too)
     */
    public static long run(SubBufferLayout layout, Map<Integer, EventFormat> formats, ClockSync clock,
                           CaptureContext context, List<Integer> cpus, long budgetNs) throws IOException {
        if (budgetNs <= 0 || formats.isEmpty() || cpus.isEmpty()) {
            return 0;
        }
        long until = System.nanoTime() + budgetNs;
        // the merge's code is the same for any count of CPUs: a few keep the synthetic pages small
        cpus = cpus.subList(0, Math.min(cpus.size(), CPUS));
        List<List<Page>> pages = pages(layout, formats, cpus);
        if (pages.isEmpty()) {
            return 0; // only events too large for a page: nothing to warm up with
        }
        WritableByteChannel discard = Channels.newChannel(OutputStream.nullOutputStream());
        long emitted = 0;
        try (FrameSink sink = new FrameSink(List.of(new PcapngOutput("warm-up", discard, false, SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "JIT warm-up", FrameEncoder.MAX_FRAME))), context)) {
            do {
                CaptureEngine e = new CaptureEngine(null, layout, formats, clock, sink, List.of());
                for (int i = 0; i < cpus.size(); i++) {
                    e.queued(cpus.get(i), pages.get(i));
                }
                Throwable t = e.emitHere();
                if (t != null) {
                    throw new IOException("the capture engine failed on the JIT warm-up's synthetic records: " + t, t);
                }
                emitted += e.emitted();
            } while (System.nanoTime() < until);
        }
        return emitted;
    }

    /**
     * The warm-up's sub-buffers: per CPU, {@link #PAGES} pages of records of every event in turn
     * (events too large for a page left out); empty when no event fits a page.
     */
    private static List<List<Page>> pages(SubBufferLayout layout, Map<Integer, EventFormat> formats,
                                          List<Integer> cpus) {
        List<ByteBuffer> payloads = payloads(layout, formats);
        if (payloads.isEmpty()) {
            return List.of();
        }
        int n = cpus.size();
        List<List<Page>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SubBufferBuilder builder = new SubBufferBuilder(layout);
            List<Page> cpuPages = new ArrayList<>();
            long k = 0;
            while (cpuPages.size() < PAGES) {
                long ts = 1_000_000_000L + (k * n + i) * 100; // the CPUs' records interleave in time
                ByteBuffer payload = payloads.get((int) (k % payloads.size())).duplicate();
                if (!builder.isOpen()) {
                    builder.start(ts, 0);
                }
                if (!builder.tryAdd(ts, payload)) {
                    cpuPages.add(page(builder.finish(), layout, cpus.get(i)));
                    continue; // the same record starts the next page
                }
                k++;
            }
            out.add(cpuPages);
        }
        return out;
    }

    /** One record's payload per event that fits a page: its id and this process's pid set, zeros else. */
    private static List<ByteBuffer> payloads(SubBufferLayout layout, Map<Integer, EventFormat> formats) {
        ByteOrder order = layout.kernel().byteOrder();
        List<ByteBuffer> payloads = new ArrayList<>();
        int pid = (int) ProcessHandle.current().pid();
        SubBufferBuilder fits = new SubBufferBuilder(layout);
        for (EventFormat f : formats.values()) {
            int size = Math.max(8, f.fixedSize());
            if (!fits.fitsEmptyPage(size)) {
                continue; // too large for any page: not an event the warm-up needs
            }
            ByteBuffer b = ByteBuffer.allocate(size).order(order);
            b.putShort(0, (short) f.id());
            Field pidField = f.fieldsByName().get("common_pid");
            if (pidField != null && pidField.size() == 4 && pidField.offset() + 4 <= b.capacity()) {
                b.putInt(pidField.offset(), pid);
            }
            payloads.add(b);
        }
        return payloads;
    }

    private static Page page(ByteBuffer bytes, SubBufferLayout layout, int cpu) {
        Page p = new Page(bytes.remaining(), layout.kernel().byteOrder());
        p.buf.put(0, bytes, bytes.position(), bytes.remaining());
        p.header = SubBuffer.header(p.buf, layout, cpu);
        return p;
    }
}
