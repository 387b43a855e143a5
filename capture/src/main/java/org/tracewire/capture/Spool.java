package org.tracewire.capture;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.posix.Posix;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.RingBufferStats;

/**
 * The on-disk read-ahead of a capture into a pcapng file, {@code OUT.pcapng.tw-spool/} beside it,
 * so that a capture killed at any moment loses no more than it must (docs/capture-recovery.md).
 * As {@code trace-cmd record} keeps the raw per-CPU pages on disk, the drainers read the kernel's
 * sub-buffers straight into shared mappings of {@code cpuN.spool} (one file per CPU, a sub-buffer
 * per slot, {@link ReadAhead.Arena}), so what was read is in the page cache the moment
 * {@code read()} returns and outlives the process; a slot is reused only once the frames of every
 * record it held are in the pcapng file's whole blocks (written, not buffered). {@code header}
 * holds what framing them later needs ({@link Header}). When the capture ends normally the spool
 * is deleted; when its process is killed, the {@link Watchdog} adds the pages the kernel still held
 * ({@code cpuN.tail}) and each CPU's final counters ({@code cpuN.stats}), and
 * {@code tracewire recover OUT.pcapng} ({@link Recovery}) frames what the file lacks.
 */
public final class Spool implements AutoCloseable {
    /** What a spool directory's name adds to the pcapng file's. */
    public static final String SUFFIX = ".tw-spool";
    static final String HEADER = "header";

    /**
     * What a spool says about its capture.
     *
     * @param pid         the capture's process id
     * @param bootId      the kernel's boot id ({@code /proc/sys/kernel/random/boot_id})
     * @param captureId   the CAPTURE message's id (the recovered frames continue the same capture)
     * @param clockName   the trace clock's name, or null
     * @param clock       the trace clock's measured offset to wall time
     * @param events      the selected events, {@code system:event}
     * @param naming      the events read only to follow task names ({@link TaskNaming}), {@code system:event}
     * @param headerPage  the instance's {@code events/header_page} text
     * @param headerEvent the instance's {@code events/header_event} text
     * @param byteOrder   the kernel's byte order
     * @param cpus        the CPUs read
     * @param base        each CPU's ring-buffer counters when the capture started reading
     */
    public record Header(long pid, String bootId, String captureId, String clockName, ClockSync clock,
                         List<String> events, List<String> naming, String headerPage, String headerEvent, ByteOrder byteOrder,
                         List<Integer> cpus, Map<Integer, RingBufferStats> base) {
        /** What the header says of a capture whose engine has started (its CPUs' counters read). */
        static Header of(CaptureSession session, FrameSink frames, CaptureEngine engine) {
            var capture = frames.context() == null ? null : frames.context().capture();
            Map<Integer, RingBufferStats> bases = engine.bases();
            return new Header(ProcessHandle.current().pid(), capture == null ? null : capture.bootId(),
                    capture == null ? "tracewire-" + ProcessHandle.current().pid() : capture.captureId(),
                    capture == null ? null : capture.clock(), session.clock(),
                    EventSelection.recorded(session.events()).stream().map(EventSelection::fullName).toList(),
                    session.namingEvents().stream().map(EventSelection::fullName).toList(),
                    session.instance().read("events/header_page"), session.instance().read("events/header_event"),
                    session.layout().kernel().byteOrder(), List.copyOf(bases.keySet()), bases);
        }

        /** The sub-buffer layout the pages were read with. */
        public SubBufferLayout layout() {
            var page = FormatParser.parseHeaderPage(headerPage, "spool header_page");
            var event = FormatParser.parseHeaderEvent(headerEvent, "spool header_event");
            return SubBufferLayout.of(page, event, KernelLayout.fromHeaderPage(page, byteOrder));
        }

        void store(Path file) throws IOException {
            Properties p = new Properties();
            p.setProperty("pid", Long.toString(pid));
            p.setProperty("bootId", bootId == null ? "" : bootId);
            p.setProperty("captureId", captureId);
            p.setProperty("clockName", clockName == null ? "" : clockName);
            p.setProperty("clockOffsetNs", Long.toString(clock.offsetNs()));
            p.setProperty("clockErrorNs", Long.toString(clock.errorNs()));
            p.setProperty("events", String.join(",", events));
            p.setProperty("naming", String.join(",", naming));
            p.setProperty("headerPage", headerPage);
            p.setProperty("headerEvent", headerEvent);
            p.setProperty("byteOrder", byteOrder == ByteOrder.LITTLE_ENDIAN ? "little" : "big");
            List<String> cs = new ArrayList<>();
            for (int c : cpus) {
                cs.add(Integer.toString(c));
                RingBufferStats b = base.get(c);
                p.setProperty("base.cpu" + c, b.entries() + " " + b.overrun() + " " + b.commitOverrun() + " "
                        + b.bytes() + " " + b.droppedEvents() + " " + b.readEvents());
            }
            p.setProperty("cpus", String.join(",", cs));
            Path tmp = file.resolveSibling(HEADER + ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                p.store(out, "tracewire capture spool: run `tracewire recover` on its pcapng");
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        static Header load(Path file) throws IOException {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                p.load(in);
            }
            try {
                List<Integer> cpus = new ArrayList<>();
                Map<Integer, RingBufferStats> base = new HashMap<>();
                for (String c : p.getProperty("cpus").split(",")) {
                    int cpu = Integer.parseInt(c.strip());
                    cpus.add(cpu);
                    String[] v = p.getProperty("base.cpu" + cpu).strip().split(" ");
                    base.put(cpu, new RingBufferStats(Long.parseLong(v[0]), Long.parseLong(v[1]), Long.parseLong(v[2]),
                            Long.parseLong(v[3]), Long.parseLong(v[4]), Long.parseLong(v[5])));
                }
                String clockName = p.getProperty("clockName");
                String bootId = p.getProperty("bootId");
                return new Header(Long.parseLong(p.getProperty("pid")), bootId.isEmpty() ? null : bootId,
                        p.getProperty("captureId"), clockName.isEmpty() ? null : clockName,
                        new ClockSync(Long.parseLong(p.getProperty("clockOffsetNs")),
                                Long.parseLong(p.getProperty("clockErrorNs"))),
                        List.of(p.getProperty("events").split(",")),
                        p.getProperty("naming", "").isEmpty() ? List.of() : List.of(p.getProperty("naming").split(",")),
                        p.getProperty("headerPage"),
                        p.getProperty("headerEvent"),
                        "little".equals(p.getProperty("byteOrder")) ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN,
                        cpus, base);
            } catch (RuntimeException e) {
                throw new IOException(file + ": not a tracewire spool header (" + e + ")", e);
            }
        }
    }

    private final Path dir;
    private final Map<Integer, Integer> fds = new HashMap<>();
    private boolean closed;
    /**
     * Bytes the spool files may still take: half the file system's free space when the capture
     * started, so the spool never takes the room its pcapng file needs (pages beyond it live in
     * memory, as without a spool).
     */
    private final AtomicLong budget;

    private Spool(Path dir, long budget) {
        this.dir = dir;
        this.budget = new AtomicLong(budget);
    }

    /**
     * Takes {@code bytes} of the spool's budget for a new mapping.
     *
     * @return false when the budget has no room (the mapping then goes to memory)
     */
    boolean reserve(long bytes) {
        while (true) {
            long left = budget.get();
            if (left < bytes) {
                return false;
            }
            if (budget.compareAndSet(left, left - bytes)) {
                return true;
            }
        }
    }

    /** The spool directory of a pcapng file: {@code FILE} + {@link #SUFFIX}, beside it. */
    public static Path dirFor(Path pcapng) {
        Path abs = pcapng.toAbsolutePath();
        return abs.resolveSibling(abs.getFileName() + SUFFIX);
    }

    /**
     * Creates the spool directory of a pcapng file (a spool of an earlier capture into the same file
     * is removed first: that file is being replaced).
     *
     * @param pcapng the capture's pcapng file
     * @return the spool, empty
     * @throws IOException when the directory cannot be made
     */
    public static Spool create(Path pcapng) throws IOException {
        Path dir = dirFor(pcapng);
        delete(dir);
        Files.createDirectory(dir);
        long free;
        try {
            free = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            free = 0;
        }
        return new Spool(dir, free / 2);
    }

    /** The directory. */
    public Path dir() {
        return dir;
    }

    /**
     * The open spool file of a CPU ({@code cpuN.spool}, created without following links, 0600),
     * for {@link ReadAhead.Arena}; closed by {@link #close()}.
     *
     * @throws IOException when it cannot be created
     */
    synchronized int file(int cpu) throws IOException {
        Integer fd = fds.get(cpu);
        if (fd != null) {
            return fd;
        }
        Path f = dir.resolve("cpu" + cpu + ".spool");
        try {
            int n = Posix.open(f.toString(), Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW
                    | Posix.O_CLOEXEC, 0600);
            fds.put(cpu, n);
            return n;
        } catch (LastErrorException e) {
            throw new IOException("cannot create " + f + ": errno " + e.getErrorCode(), e);
        }
    }

    /** Writes the header (atomically: a killed capture leaves the old one or the new one). */
    public void writeHeader(Header h) throws IOException {
        h.store(dir.resolve(HEADER));
    }

    /** Closes the spool files (the directory stays; {@link #delete()} removes it). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int fd : fds.values()) {
            try {
                Posix.close(fd);
            } catch (LastErrorException ignored) {
                // nothing left to release
            }
        }
        fds.clear();
    }

    /** Closes and removes the spool: the capture's frames are all in its file. */
    public void delete() throws IOException {
        close();
        delete(dir);
    }

    /** Removes a spool directory and its files (links are removed, never followed); nothing when absent. */
    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is in the way of a capture spool and is not a directory");
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
