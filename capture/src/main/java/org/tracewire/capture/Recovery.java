package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.tracewire.format.EventFormat;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.ringbuffer.CorruptPageException;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.RingBufferStats;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;

/**
 * {@code tracewire recover OUT.pcapng}: finishes the pcapng file of a capture that was killed
 * (docs/capture-recovery.md). The file is cut back to its last whole block; when the capture left
 * a spool ({@link Spool}), the records its file lacks are framed from it (the spool's pages, then
 * the pages the {@link Watchdog} drained from the kernel), with the same capture id, clock and
 * formats, through the capture's own emitter ({@link CaptureEngine#replay}); per CPU the events the
 * kernel tried to record and the file does not hold are added as LOST counts (from the kernel's
 * final counters the watchdog saved), and the Interface Statistics Block closes the file. The spool
 * is removed at the end. Must run on the machine and boot that captured (the formats and task names
 * come from its tracefs and {@code /proc}).
 */
public final class Recovery {
    private Recovery() {
    }

    /**
     * What a recovery did.
     *
     * @param cutBytes      bytes cut from the end of the file (a block the kill left partly written)
     * @param hadSpool      true when a spool was found and framed
     * @param recovered     per CPU, the events framed from the spool
     * @param eventsInFile  event frames the file holds at the end
     * @param lost          per CPU, events lost in all (in the file's drop counts), when the kernel's
     *                      final counters were saved; empty when not
     * @param complete      true when the file was complete already (its statistics block written)
     */
    public record Result(long cutBytes, boolean hadSpool, Map<Integer, Long> recovered, long eventsInFile,
                         Map<Integer, Long> lost, boolean complete) {
        /** Events framed from the spool, all CPUs. */
        public long recoveredTotal() {
            return recovered.values().stream().mapToLong(Long::longValue).sum();
        }

        /** One line for the terminal. */
        public String describe(Path file) {
            if (complete && cutBytes == 0) {
                return "recover: " + file + " is complete (" + eventsInFile + " events): nothing to do";
            }
            StringBuilder sb = new StringBuilder("recover: ").append(file).append(": ");
            if (cutBytes > 0) {
                sb.append("cut ").append(cutBytes).append(" bytes of a partly written block; ");
            }
            if (hadSpool) {
                sb.append(recoveredTotal()).append(" events framed from the spool; ");
            } else {
                sb.append("no spool; ");
            }
            sb.append(eventsInFile).append(" events in the file");
            if (!lost.isEmpty()) {
                sb.append(", lost events:");
                lost.forEach((cpu, n) -> sb.append(" cpu").append(cpu).append(' ').append(n));
                sb.append(" (file + lost = the kernel's count on every CPU)");
            } else if (hadSpool) {
                sb.append(" (the kernel's final counters were not saved: losses after the last page read are "
                        + "not counted)");
            }
            return sb.toString();
        }
    }

    /** What the file holds, up to its last whole block. */
    static final class Scan {
        /** Bytes of whole blocks from the start. */
        long wholeEnd;
        long size;
        boolean complete;
        int snapLength;
        /** True once an Interface Description Block was read: packets can be added to interface 0. */
        boolean hasInterface;
        long packets;
        long drops;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        /** Per CPU {last event frame time, how many event frames at that time, event frames, drop counts}. */
        final Map<Integer, long[]> cpus = new TreeMap<>();
        long events;

        long[] cpu(int c) {
            return cpus.computeIfAbsent(c, k -> new long[] {Long.MIN_VALUE, 0, 0, 0});
        }
    }

    /**
     * Reads a tracewire pcapng up to its last whole block ({@link PcapngPacketReader}, which reads a
     * file whose last block was cut short up to the block before).
     *
     * @throws IOException when the file is not a pcapng, or is malformed before its end
     */
    static Scan scan(Path file) throws IOException {
        Scan s = new Scan();
        s.size = Files.size(file);
        if (s.size < 28) {
            return s; // killed before its header blocks reached the file
        }
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                long ts = p.timeNs();
                s.packets++;
                s.drops += p.dropCount();
                s.first = Math.min(s.first, ts);
                s.last = Math.max(s.last, ts);
                byte[] d = p.data();
                if (d.length < WireHeader.SIZE) {
                    continue;
                }
                int cpu = WireHeader.cpu(d);
                if (WireHeader.kindCode(d) == FrameKind.EVENT.code()) {
                    long[] c = s.cpu(cpu);
                    if (ts == c[0]) {
                        c[1]++;
                    } else if (ts > c[0]) {
                        c[0] = ts;
                        c[1] = 1;
                    }
                    c[2]++;
                    s.events++;
                } else if (p.dropCount() > 0 && cpu != WireHeader.NO_CPU) {
                    s.cpu(cpu)[3] += p.dropCount();
                }
            }
            if (r.sections() != 1 || r.interfaces().size() > 1) {
                throw new IOException(file + " holds " + r.sections() + " sections and " + r.interfaces().size()
                        + " interfaces: not one capture's file");
            }
            s.hasInterface = r.interfaces().size() == 1;
            s.snapLength = s.hasInterface ? r.interfaces().get(0).snapLength() : 0;
            s.complete = s.hasInterface && r.statisticsDrops(0) >= 0;
            s.wholeEnd = r.truncatedAt() >= 0 ? r.truncatedAt() : s.size;
        }
        return s;
    }

    /**
     * Recovers a killed capture's file.
     *
     * @param top    the live tracefs (the formats of the spool's events)
     * @param pcapng the capture's file
     * @return what was done
     * @throws IOException when the file cannot be read or written, the spool belongs to a capture
     *                     that still runs, or to another boot of this machine
     */
    public static Result recover(Tracefs top, Path pcapng) throws IOException {
        if (!Files.isRegularFile(pcapng, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(pcapng + " is not a regular file");
        }
        Path dir = Spool.dirFor(pcapng);
        Path headerFile = dir.resolve(Spool.HEADER);
        Spool.Header header = Files.isRegularFile(headerFile, LinkOption.NOFOLLOW_LINKS) ? Spool.Header.load(headerFile)
                : null;
        if (header != null) {
            checkRecoverable(top, pcapng, dir, header);
        }
        Scan scan = scan(pcapng);
        long cut = scan.size - scan.wholeEnd;
        if (cut > 0) {
            try (FileChannel ch = FileChannel.open(pcapng, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ch.truncate(scan.wholeEnd);
            }
        }
        if (header == null || scan.complete) {
            if (header != null || Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Spool.delete(dir); // the capture finished its file: what the spool holds is in it
            }
            return new Result(cut, false, Map.of(), scan.events, Map.of(), scan.complete);
        }
        return frameSpool(top, pcapng, dir, header, scan, cut);
    }

    /**
     * Frames what the spool holds after the file's last whole frame (the file was cut back to it
     * by {@code cut} bytes), with the context the capture's events need, then deletes the spool.
     *
     * @throws IOException when a spool file or the pcapng cannot be read or written (the spool is kept)
     */
    private static Result frameSpool(Tracefs top, Path pcapng, Path dir, Spool.Header header, Scan scan, long cut)
            throws IOException {
        SubBufferLayout layout = header.layout();
        List<EventSelection> events = selections(header.events());
        List<EventSelection> naming = selections(header.naming());
        List<EventSelection> read = new ArrayList<>(events);
        read.addAll(naming);
        Map<Integer, EventFormat> formats = CaptureFormats.of(top, read);
        CaptureContext context = CaptureContext.of(top, events, naming, layout, header.clock(), header.clockName(),
                header.captureId());
        Map<Integer, List<ByteBuffer>> pages = new TreeMap<>();
        List<FileChannel> open = new ArrayList<>();
        Map<Integer, long[]> resume = new HashMap<>();
        Map<Integer, Long> framed;
        try {
            for (int cpu : header.cpus()) {
                pages.put(cpu, spooledPages(dir, layout, cpu, open));
                long[] c = scan.cpus.get(cpu);
                if (c != null) {
                    resume.put(cpu, new long[] {c[0], c[1]});
                }
            }
            PcapngOutput output = reopen(pcapng, scan, header);
            try (FrameSink sink = new FrameSink(List.of(output), context)) {
                framed = CaptureEngine.replay(layout, formats, header.clock(), sink, pages, resume,
                        CaptureFormats.namingIds(formats, naming));
                Map<Integer, Long> lost = lostAtEnd(sink, dir, header, scan, framed);
                sink.flush();
                List<OutputFailure> failed = sink.failures();
                if (!failed.isEmpty()) {
                    throw new IOException("writing " + pcapng + " failed: " + failed.get(0).reason()
                            + "; the spool " + dir + " is kept");
                }
                long inFile = scan.events + framed.values().stream().mapToLong(Long::longValue).sum();
                sink.close();
                Result r = new Result(cut, true, framed, inFile, lost, false);
                closeAll(open);
                Spool.delete(dir);
                return r;
            }
        } finally {
            closeAll(open);
        }
    }

    /** A CPU's spooled sub-buffers ({@code cpuN.spool}, then {@code cpuN.tail}) in time order; the files stay open in {@code open}. */
    private static List<ByteBuffer> spooledPages(Path dir, SubBufferLayout layout, int cpu, List<FileChannel> open)
            throws IOException {
        List<ByteBuffer> p = new ArrayList<>();
        p.addAll(pagesOf(dir.resolve("cpu" + cpu + ".spool"), layout, cpu, open));
        p.addAll(pagesOf(dir.resolve("cpu" + cpu + ".tail"), layout, cpu, open));
        p.sort(Comparator.comparingLong(b -> SubBuffer.header(b, layout, cpu).timestamp()));
        return p;
    }

    /**
     * Refuses a spool whose capture still runs (its process and its instance are there) or that
     * another boot of this machine wrote.
     */
    private static void checkRecoverable(Tracefs top, Path pcapng, Path dir, Spool.Header header) throws IOException {
        if (ProcessHandle.of(header.pid()).map(ProcessHandle::isAlive).orElse(false)
                && Files.exists(top.root().resolve("instances/tracewire-" + header.pid()))) {
            throw new IOException("the capture of " + pcapng + " (pid " + header.pid() + ") still runs");
        }
        String boot = readOr(Path.of("/proc/sys/kernel/random/boot_id"));
        if (header.bootId() != null && boot != null && !boot.equals(header.bootId())) {
            throw new IOException("the spool " + dir + " is of another boot of this machine (" + header.bootId()
                    + "): its events' formats may differ now; nothing was changed");
        }
    }

    /** The events a spool's header names, unfiltered. */
    private static List<EventSelection> selections(List<String> names) {
        List<EventSelection> out = new ArrayList<>();
        for (String e : names) {
            out.add(EventSelection.parse(e, null));
        }
        return out;
    }

    /**
     * The capture's file opened to go on after its last whole block, or, when it holds no interface
     * yet (killed before its first block reached the file), rewritten from its header blocks as the
     * capture writes them.
     */
    private static PcapngOutput reopen(Path pcapng, Scan scan, Spool.Header header) throws IOException {
        FileChannel out = FileChannel.open(pcapng, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        if (scan.hasInterface) {
            out.position(scan.wholeEnd);
            return new PcapngOutput(pcapng.toString(), PcapngWriter.resume(out, scan.snapLength, scan.packets,
                    scan.drops, scan.first, scan.last));
        }
        out.truncate(0);
        SectionInfo section = SectionInfo.host();
        return new PcapngOutput(pcapng.toString(), out, false, section, FrameOutputs.identity(section,
                header.clockName(), header.clock(), FrameEncoder.MAX_FRAME));
    }

    /**
     * The events each CPU lost in all, from the watchdog's final counters (none when any is
     * missing); what the file does not count yet goes into it as LOST at its end.
     */
    private static Map<Integer, Long> lostAtEnd(FrameSink sink, Path dir, Spool.Header header, Scan scan,
                                                Map<Integer, Long> framed) throws IOException {
        Map<Integer, Long> lost = new TreeMap<>();
        Map<Integer, RingBufferStats> end = finalStats(dir, header.cpus());
        if (end != null) {
            for (int cpu : header.cpus()) {
                long[] c = scan.cpus.getOrDefault(cpu, new long[4]);
                long kept = c[2] + framed.getOrDefault(cpu, 0L);
                long attempted = end.get(cpu).minus(header.base().get(cpu)).attempted();
                long all = Math.max(0, attempted - kept);
                long more = all - c[3];
                if (more > 0) {
                    sink.lostAtEnd(cpu, more);
                }
                lost.put(cpu, Math.max(all, c[3]));
            }
        }
        return lost;
    }

    /** Each CPU's counters the watchdog saved ({@code cpuN.stats}), or null when any is missing. */
    private static Map<Integer, RingBufferStats> finalStats(Path dir, List<Integer> cpus) {
        Map<Integer, RingBufferStats> m = new HashMap<>();
        for (int cpu : cpus) {
            Path f = dir.resolve("cpu" + cpu + ".stats");
            try {
                m.put(cpu, RingBufferStats.parse(Files.readString(f)));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
        return m;
    }

    /** The sub-buffers of a spool or tail file that hold data, mapped read-only (none when absent). */
    private static List<ByteBuffer> pagesOf(Path file, SubBufferLayout layout, int cpu, List<FileChannel> open)
            throws IOException {
        List<ByteBuffer> out = new ArrayList<>();
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        open.add(ch);
        int size = layout.subBufferSize();
        long total = ch.size() - ch.size() % size;
        long chunk = (long) (Integer.MAX_VALUE / size) * size;
        for (long at = 0; at < total; at += chunk) {
            ByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, at, Math.min(chunk, total - at));
            for (int o = 0; o + size <= m.capacity(); o += size) {
                ByteBuffer p = m.slice(o, size).order(layout.kernel().byteOrder());
                try {
                    SubBuffer.PageHeader h = SubBuffer.header(p, layout, cpu);
                    if (h.dataLength() > 0) {
                        out.add(p);
                    }
                } catch (CorruptPageException e) {
                    // a slot never filled whole: nothing of it was read
                }
            }
        }
        return out;
    }

    private static void closeAll(List<FileChannel> open) {
        for (FileChannel c : open) {
            try {
                c.close();
            } catch (IOException ignored) {
                // read-only
            }
        }
        open.clear();
    }

    private static String readOr(Path p) {
        try {
            return Files.readString(p).strip();
        } catch (IOException e) {
            return null;
        }
    }
}
