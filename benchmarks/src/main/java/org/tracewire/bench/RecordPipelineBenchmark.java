package org.tracewire.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.tracewire.capture.FrameSink;
import org.tracewire.capture.PcapngOutput;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FieldKind;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.ringbuffer.TracePipeRaw;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Per-core throughput of the capture path on real sub-buffers of this machine (the page fixture:
 * sched, irq, timer, syscalls, kmem, block, net, … records). One operation = one record.
 * {@link #scanEmitPcapng}: what the capture's emitter does per record (walk the page in place into
 * the index, look up the format, hand the payload (its page, index and length, as the engine does)
 * to the {@code FrameSink}, which encodes the frame straight into the pcapng writer's buffer inside
 * its Enhanced Packet Block), minus the merge of the
 * CPUs and the context (no {@code CaptureContext}), into a channel that discards.
 * {@link #scanEncode}: the same walk with the frame encoded into a batch buffer, the per-record work
 * of the earlier engine's per-CPU processor threads (kept for comparison): decode + encode, where
 * encoding is, in wire format v2, the 16-byte header and a copy of the record payload.
 * {@link #decode}: sub-buffer decode + an {@link EventRecord} per record with every integer field
 * read. JMH's {@code records} line is the per-core rate in records/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RecordPipelineBenchmark {
    /** Sub-buffers read live for {@code pagesOf=live-sched}. */
    static final int LIVE_PAGES = 256;
    /**
     * Pages each invocation walks, each a direct buffer of its own (the fixture's cycled): 256 is
     * 1 MiB, in cache as a benchmark loop keeps it; 16384 is 64 MiB, past this machine's 32 MiB L3,
     * so each page comes from memory as a live capture's freshly read pages do (measured
     * 2026-11-24, {@code -f 2 -wi 3 -i 5}: {@code scanEmitPcapng} 34.8 ± 2.4 M records/s on 256
     * pages, 30.7 ± 1.9 M/s on 16384: about 4 ns more per record).
     */
    @Param({"256"})
    public int pageCount;
    /**
     * Which pages: {@code all} = the checked-in fixture (every kind of record), {@code live-sched}
     * = pages read now from this kernel with only sched_switch and sched_wakeup enabled (the
     * sched_switch-size case of the capture issue; needs root and tracefs).
     */
    @Param({"all"})
    public String pagesOf;
    List<ByteBuffer> pages;
    int[] cpus;
    Map<Integer, EventFormat> formats;
    SubBufferLayout layout;
    KernelLayout kernel;
    int records;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        formats = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        pages = new ArrayList<>();
        List<PageFixture.Page> all = switch (pagesOf) {
            case "all" -> PageFixture.load();
            case "live-sched" -> liveSchedPages();
            default -> throw new IllegalArgumentException("pagesOf " + pagesOf);
        };
        cpus = new int[pageCount];
        for (int i = 0; i < pageCount; i++) {
            PageFixture.Page p = all.get(i % all.size());
            pages.add(ByteBuffer.wrap(p.bytes()));
            cpus[i] = p.cpu();
            SubBuffer sb = SubBuffer.decode(ByteBuffer.wrap(p.bytes()), layout, p.cpu());
            records += sb.records().size();
            for (RawRecord r : sb.records()) {
                payloadBytes += r.payload().remaining();
            }
        }
        System.out.printf("%n%s: %d distinct pages, records per invocation: %d, mean payload %.1f bytes%n", pagesOf,
                all.size(), records, (double) payloadBytes / records);
        int max = formats.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        byId = new EventFormat[max + 1];
        formats.forEach((id, f) -> byId[id] = f);
        direct = new ArrayList<>();
        for (ByteBuffer p : pages) {
            direct.add(ByteBuffer.allocateDirect(p.capacity()).order(ByteOrder.LITTLE_ENDIAN).put(p.duplicate()).flip());
        }
        batch = ByteBuffer.allocateDirect(1 << 20);
    }

    long payloadBytes;
    EventFormat[] byId;
    List<ByteBuffer> direct;
    ByteBuffer batch;
    long sequence;
    int scanCpu;
    ByteBuffer view;

    /** One reader thread's per-record work: the engine's visitor, minus the queue hand-off. */
    private final SubBuffer.RecordVisitor encodeIntoBatch = this::encodeIntoBatch;

    private void encodeIntoBatch(long ts, ByteBuffer page, int offset, int length, int pageOffset) {
        EventFormat f = byId[page.getShort(offset) & 0xffff];
        if (f == null) {
            return; // the engine skips (and counts) records of unknown ids
        }
        if (batch.remaining() < encoder.maxFrameSize()) {
            batch.clear();
        }
        view.limit(offset + length).position(offset);
        encoder.event(ByteOrder.LITTLE_ENDIAN, view, scanCpu, ts, false, batch);
    }

    /**
     * Decode + encode as a capture's reader thread does it: {@link SubBuffer#header} and
     * {@link SubBuffer#scan} over each page in place, the format by id, the frame encoded into a
     * 1 MiB batch buffer; nothing allocated per record.
     */
    @Benchmark
    public void scanEncode(Records counter) {
        for (int i = 0; i < pageCount; i++) {
            ByteBuffer page = direct.get(i);
            scanCpu = cpus[i];
            view = page.duplicate(); // the engine keeps one view of its one page buffer
            SubBuffer.PageHeader h = SubBuffer.header(page, layout, cpus[i]);
            SubBuffer.scan(page, layout, h, cpus[i], encodeIntoBatch);
        }
        counter.records += records;
    }

    /** The emitter's frame sink: one pcapng output into a channel that discards what it is given. */
    FrameSink sink;

    /** The emitter's per-record work ({@link #scanEmitPcapng}). */
    private final SubBuffer.RecordVisitor emitIntoPcapng = this::emitIntoPcapng;

    private void emitIntoPcapng(long ts, ByteBuffer page, int offset, int length, int pageOffset) {
        EventFormat f = byId[page.getShort(offset) & 0xffff];
        if (f == null) {
            return; // the engine skips (and counts) records of unknown ids
        }
        try {
            sink.event(view, offset, length, f, scanCpu, ts, false, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Decode + emit as the capture's emitter does it: {@link SubBuffer#header} and
     * {@link SubBuffer#scan} over each page in place, the format by id, the frame encoded by
     * {@code FrameSink.event} into the pcapng writer's 256 KiB buffer (flushed to a channel that
     * discards); nothing allocated per record.
     */
    @Benchmark
    public void scanEmitPcapng(Records counter) throws IOException {
        if (sink == null) {
            WritableByteChannel discard = new WritableByteChannel() {
                @Override
                public int write(ByteBuffer src) {
                    int n = src.remaining();
                    src.position(src.limit());
                    return n;
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
            sink = new FrameSink(List.of(new PcapngOutput("discard", discard,
                    false, SectionInfo.host(), InterfaceInfo.tracewire("tw",
                    "bench", FrameEncoder.MAX_FRAME))), null);
        }
        for (int i = 0; i < pageCount; i++) {
            ByteBuffer page = direct.get(i);
            scanCpu = cpus[i];
            view = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            SubBuffer.PageHeader h = SubBuffer.header(page, layout, cpus[i]);
            SubBuffer.scan(page, layout, h, cpus[i], emitIntoPcapng);
        }
        counter.records += records;
    }

    /** Full pages of sched_switch + sched_wakeup records read from a tracefs instance of our own. */
    static List<PageFixture.Page> liveSchedPages() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        List<PageFixture.Page> out = new ArrayList<>();
        try (var inst = TestInstances.create(top, "bench")) {
            inst.setBufferSizeKb(4096);
            inst.setEnabled("sched", "sched_switch", true);
            inst.setEnabled("sched", "sched_wakeup", true);
            Process load = new ProcessBuilder("stress-ng", "--switch", "2", "-t", "2")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            load.waitFor();
            inst.setTracingOn(false);
            for (int cpu : inst.cpus()) {
                try (var in = TracePipeRaw.open(inst.tracePipeRaw(cpu), cpu)) {
                    ByteBuffer page = ByteBuffer.allocateDirect(4096);
                    while (in.readSubBuffer(page) > 0 && out.size() < 4 * LIVE_PAGES) {
                        byte[] b = new byte[page.limit()];
                        page.get(0, b);
                        out.add(new PageFixture.Page(cpu, b));
                    }
                }
            }
        }
        if (out.size() < LIVE_PAGES) {
            throw new IllegalStateException("only " + out.size() + " sched pages read");
        }
        return out;
    }

    FrameEncoder encoder;
    ByteBuffer frame;
    PcapngWriter pcapng;

    @Setup(Level.Trial)
    public void setupEncoder() throws Exception {
        encoder = new FrameEncoder();
        frame = ByteBuffer.allocateDirect(encoder.maxFrameSize());
        pcapng = new PcapngWriter(Channels.newChannel(
                OutputStream.nullOutputStream()), new SectionInfo("bench", "Linux", "bench"));
        pcapng.addInterface(InterfaceInfo.tracewire("tracewire", "bench", FrameEncoder.MAX_FRAME));
        sizes();
    }

    /**
     * Prints bytes per event against the raw ring-buffer record (wire format v2, {@code docs/wire-format.md}
     * §7): the raw record is the payload + its 4-byte header (+ 4 when the length is stored apart, payloads
     * over 112 bytes); a frame is 16 + the payload; a pcapng EPB adds 32 bytes around it (28 before, 4 after;
     * the frame is a multiple of 4 bytes, so no padding).
     */
    void sizes() {
        long raw = 0;
        long frames = 0;
        long n = 0;
        for (int i = 0; i < pageCount; i++) {
            for (RawRecord r : SubBuffer.decode(pages.get(i), layout, cpus[i]).records()) {
                int payload = r.payload().remaining();
                raw += payload + (payload > 112 ? 8 : 4);
                frames += WireHeader.SIZE + payload;
                n++;
            }
        }
        System.out.printf("%s: per event: raw record %.1f B, v2 frame %.1f B (%.3f x), frame + EPB %.1f B (%.3f x)%n",
                pagesOf, (double) raw / n, (double) frames / n, (double) frames / raw, (double) (frames + 32 * n) / n,
                (double) (frames + 32 * n) / raw);
    }

    /**
     * The capture emitter's per-record work without the kernel: decode the pages, build an
     * {@link EventRecord} per record, encode its frame and write it to a pcapng stream (to a null
     * output).
     */
    @Benchmark
    public void decodeEncodePcapng(Records counter) throws IOException {
        for (int i = 0; i < pageCount; i++) {
            SubBuffer sb = SubBuffer.decode(pages.get(i), layout, cpus[i]);
            for (RawRecord r : sb.records()) {
                EventFormat f = formats.get(r.eventId());
                EventRecord er = new EventRecord(f, kernel, r.cpu(), r.timestamp(), r.payload());
                frame.clear();
                encoder.event(er.layout().byteOrder(), er.payload(), r.cpu(), r.timestamp(), false, frame);
                frame.flip();
                pcapng.writePacket(0, r.timestamp(), frame, frame.remaining(), 0);
            }
            counter.records += sb.records().size();
        }
    }

    /** Counts records, so JMH reports records per second beside invocations. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Records {
        /** Records processed. */
        public long records;
    }

    /** Decodes {@link #pageCount} pages and reads every integer field of every record. */
    @Benchmark
    public long decode(Blackhole bh, Records counter) {
        long sum = 0;
        for (int i = 0; i < pageCount; i++) {
            SubBuffer sb = SubBuffer.decode(pages.get(i), layout, cpus[i]);
            for (RawRecord r : sb.records()) {
                EventFormat f = formats.get(r.eventId());
                EventRecord er = new EventRecord(f, kernel, r.cpu(), r.timestamp(), r.payload());
                for (var field : f.fields()) {
                    if (field.kind() == FieldKind.INTEGER) {
                        sum += er.integer(field);
                    }
                }
                bh.consume(er);
            }
            counter.records += sb.records().size();
        }
        return sum;
    }
}
