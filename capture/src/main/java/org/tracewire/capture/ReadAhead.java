package org.tracewire.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.tracewire.posix.Posix;

/**
 * The read-ahead of a capture that writes only files: the sub-buffers its drainers read while
 * tracing and its emitter has not framed yet, so the per-record work can wait until tracing stops
 * (docs/decisions/0009-read-ahead.md, 0010-pacer.md).
 *
 * <p>{@code trace-cmd record} only splices pages while tracing; a tracewire capture must look at every
 * record to frame it, and that work is what a workload at full speed loses to the recorder. So when
 * every output is a file ({@link FrameSink#live()} false, no record sink), the emitter keeps to
 * {@link #EMITTER_CORES} of a core while tracing and the drainers keep the pages they read, up to
 * the read-ahead's limit; when any CPU's pages reach 3/4 of its share, or tracing stops, the emitter
 * works at full speed again.
 *
 * <p>The pages live in anonymous memory mapped for the purpose ({@link Arena}: 1-MiB mappings,
 * faulted in whole by {@code MAP_POPULATE}), outside the JVM's heap, unmapped when the capture ends.
 * While tracing, pages handed back beyond {@link #KEEP_FREE} bytes of a CPU's free pool are released
 * ({@link Arena#release}): after a burst, a long capture does not keep the memory it took.
 * Transparent huge pages are not used: they cost the drainers more (docs/capture.md, "Read-ahead").
 */
public final class ReadAhead {
    /** The largest default read-ahead, bytes (2 GiB): the launcher's memory ceiling counts it. */
    public static final long MAX_DEFAULT = 2048L << 20;
    /** The smallest default read-ahead, bytes: what a capture's pool of pages held before (256 MiB). */
    public static final long MIN_DEFAULT = 256L << 20;
    /** Bytes of free read-ahead pages a CPU keeps resident while tracing; the rest are released (16 MiB). */
    public static final long KEEP_FREE = 16L << 20;
    /** The emitter's allowance while tracing and the read-ahead has room, in cores (5% of one). */
    public static final double EMITTER_CORES = 0.05;
    /**
     * Bytes of one mapping of an {@link Arena} (1 MiB): the drainer that needs a page populates it
     * while sharing its CPU with the workload, so a mapping must take less time than the kernel's
     * buffer lasts at full speed (16 MiB did not: decision 0009).
     */
    static final long MAPPING = 1L << 20;

    private ReadAhead() {
    }

    /**
     * The default read-ahead of all CPUs together, bytes: a quarter of the memory the kernel says is
     * available ({@code MemAvailable} in {@code /proc/meminfo}), within {@link #MIN_DEFAULT} and
     * {@link #MAX_DEFAULT}; {@link #MIN_DEFAULT} when the file cannot be read.
     */
    public static long defaultBytes() {
        return defaultBytes(Path.of("/proc/meminfo"));
    }

    /**
     * As {@link #defaultBytes()}, from a {@code meminfo} file.
     *
     * @param meminfo a file in {@code /proc/meminfo}'s shape ({@code MemAvailable:   N kB})
     */
    static long defaultBytes(Path meminfo) {
        long available;
        try {
            available = memAvailable(Files.readAllLines(meminfo));
        } catch (IOException | UncheckedIOException e) {
            return MIN_DEFAULT;
        }
        if (available < 0) {
            return MIN_DEFAULT;
        }
        return Math.max(MIN_DEFAULT, Math.min(MAX_DEFAULT, available / 4));
    }

    /** {@code MemAvailable} in bytes from {@code /proc/meminfo}'s lines, or -1 when absent or malformed. */
    static long memAvailable(List<String> lines) {
        for (String l : lines) {
            if (l.startsWith("MemAvailable:")) {
                String[] w = l.substring("MemAvailable:".length()).trim().split("\\s+");
                try {
                    long v = Long.parseLong(w[0]);
                    return w.length > 1 && w[1].equals("kB") ? v * 1024 : v;
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /**
     * Memory for one CPU's read-ahead pages: sub-buffer-sized {@link ByteBuffer}s cut from anonymous
     * mappings of up to {@link #MAPPING} bytes ({@code mmap} with {@code MAP_POPULATE}), made as they are
     * first needed and all unmapped by {@link #close()}. The engine recycles pages through its pool;
     * {@link #release} gives one page's memory back but keeps it mapped. Not thread-safe (one drainer
     * uses it); after {@link #close()} no buffer it gave may be touched again.
     */
    static final class Arena implements AutoCloseable {
        private final int pageSize;
        private final ByteOrder order;
        /** The spool file the mappings share ({@link Spool}), or -1 for anonymous memory. */
        private int spoolFd = -1;
        /** Bytes of the spool file mapped so far (its next mapping's offset). */
        private long spoolBytes;
        /** Why the spool file could take no more (e.g. errno 28, out of disk), or null. */
        private volatile String spoolFailure;
        private final List<long[]> mappings = new ArrayList<>();
        /** Bytes of {@link #mappings}, kept as they are made: the drainer asks after every new page. */
        private long mapped;
        private ByteBuffer current;

        /**
         * @param pageSize bytes of each page (the sub-buffer size)
         * @param order    the byte order the pages are read in (the kernel's)
         */
        Arena(int pageSize, ByteOrder order) {
            this.pageSize = pageSize;
            this.order = order;
        }

        /**
         * An arena whose mappings share a spool file ({@code MAP_SHARED}, its blocks reserved with
         * {@code fallocate} first): what the drainers read survives this process, for
         * {@code tracewire recover}. When the file can take no more (out of disk), the arena goes on
         * with anonymous memory ({@link #spoolFailure()}).
         *
         * @param spoolFd an open, empty file (read and write); not closed here
         * @param reserve takes the bytes of each new mapping from the spool's budget (false: no room,
         *                the mapping and those after it go to memory)
         */
        Arena(int pageSize, ByteOrder order, int spoolFd, LongPredicate reserve) {
            this(pageSize, order);
            this.spoolFd = spoolFd;
            this.reserve = reserve;
        }

        /** Takes room in the spool's budget for a mapping ({@link Spool#reserve}); null: no budget. */
        private LongPredicate reserve;

        /** Why the spool file stopped taking pages (those after it live in anonymous memory), or null. */
        String spoolFailure() {
            return spoolFailure;
        }

        /** A mapping of {@code len} bytes: of the spool file while it takes them, else anonymous. */
        private long map(long len) {
            if (spoolFd >= 0 && reserve != null && !reserve.test(len)) {
                spoolFailure = "its share of the disk is used up";
                spoolFd = -1;
            }
            if (spoolFd >= 0) {
                try {
                    Posix.fallocate(spoolFd, 0, spoolBytes, len);
                    long address = Posix.mmap(0, len, Posix.PROT_READ | Posix.PROT_WRITE,
                            Posix.MAP_SHARED | Posix.MAP_POPULATE, spoolFd, spoolBytes);
                    spoolBytes += len;
                    return address;
                } catch (LastErrorException e) {
                    spoolFailure = "errno " + e.getErrorCode();
                    spoolFd = -1;
                }
            }
            return Posix.mmap(0, len, Posix.PROT_READ | Posix.PROT_WRITE,
                    Posix.MAP_PRIVATE | Posix.MAP_ANONYMOUS | Posix.MAP_POPULATE, -1, 0);
        }

        /**
         * A new page of {@code pageSize} bytes (zeroed by the kernel).
         *
         * @param pagesStillAllowed how many more pages the caller may take, this one included: a new
         *                          mapping is no larger than they need
         * @throws LastErrorException ENOMEM when the kernel has no room for a mapping
         */
        ByteBuffer page(long pagesStillAllowed) {
            if (current == null || current.remaining() < pageSize) {
                long want = Math.max(pageSize, Math.min(MAPPING, pagesStillAllowed * pageSize));
                long len = (want + 4095) & -4096L; // whole pages
                long address = map(len);
                mappings.add(new long[] {address, len});
                mapped += len;
                current = new Pointer(address).getByteBuffer(0, len);
            }
            ByteBuffer b = current.slice(current.position(), pageSize).order(order);
            current.position(current.position() + pageSize);
            return b;
        }

        /**
         * Gives a page's memory back to the kernel while keeping it mapped ({@code MADV_DONTNEED}):
         * its contents become zeros and it costs a fault per 4 KiB when next written. For pages this
         * arena gave (any thread may call it, the page being in no one's use).
         *
         * @param page a page from {@link #page(long)}
         */
        static void release(ByteBuffer page) {
            Posix.madvise(Posix.address(page), page.capacity(), Posix.MADV_DONTNEED);
        }

        /** Bytes mapped so far. */
        long mappedBytes() {
            return mapped;
        }

        /** Unmaps every mapping. Idempotent. */
        @Override
        public void close() {
            for (long[] m : mappings) {
                Posix.munmap(m[0], m[1]);
            }
            mappings.clear();
            mapped = 0;
            current = null;
        }
    }

    /**
     * Keeps a thread to an allowance of CPU time while tracing: {@link #parkNanos} says how long to
     * park so that the thread's CPU time since {@link #Pacer} stays within {@code cores} × the wall
     * time since then. GUI-free arithmetic on times the caller reads ({@link System#nanoTime()},
     * {@code ThreadMXBean.getCurrentThreadCpuTime()}), so it is tested with made-up clocks.
     */
    static final class Pacer {
        private final double cores;
        private final long wall0;
        private final long cpu0;
        private final long longestPark;

        /**
         * @param cores       the allowance, in cores (&gt; 0)
         * @param wallNs      the wall clock now, ns
         * @param cpuNs       the thread's CPU time now, ns
         * @param longestPark the longest park one call asks for, ns
         */
        Pacer(double cores, long wallNs, long cpuNs, long longestPark) {
            if (!(cores > 0)) {
                throw new IllegalArgumentException("allowance must be > 0 cores: " + cores);
            }
            this.cores = cores;
            this.wall0 = wallNs;
            this.cpu0 = cpuNs;
            this.longestPark = longestPark;
        }

        /**
         * How long to park now, ns: 0 while the thread is within its allowance, else the wall time
         * after which it would be again (at most the longest park).
         *
         * @param wallNs the wall clock now, ns (same clock as at construction)
         * @param cpuNs  the thread's CPU time now, ns
         */
        long parkNanos(long wallNs, long cpuNs) {
            double over = (cpuNs - cpu0) - cores * (wallNs - wall0);
            if (over <= 0) {
                return 0;
            }
            return (long) Math.min(longestPark, Math.ceil(over / cores));
        }
    }
}
