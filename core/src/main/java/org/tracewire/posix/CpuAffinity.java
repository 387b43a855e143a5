package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The CPUs a thread may run on ({@code sched_setaffinity(2)}, {@code sched_getaffinity(2)}), for
 * Linux thread ids ({@link #currentThreadId()}). Masks are {@link BitSet}s of CPU numbers; up to {@link #MAX_CPUS} CPUs.
 */
public final class CpuAffinity {
    /** The largest CPU count a mask here covers (a 1024-bit {@code cpu_set_t}, glibc's default size). */
    public static final int MAX_CPUS = 1024;
    private static final int WORDS = MAX_CPUS / 64;

    private CpuAffinity() {
    }

    /**
     * The calling thread's Linux thread id, as {@code gettid(2)} returns it: read from the
     * {@code /proc/thread-self} link ({@code PID/task/TID}, Linux 3.17+), since glibc before 2.30
     * has no {@code gettid} wrapper (and a missing symbol would fail every call of {@link Posix}).
     *
     * @throws IllegalStateException when /proc is not mounted or the link is not of that form
     */
    public static int currentThreadId() {
        Path link = Path.of("/proc/thread-self");
        try {
            Path target = Files.readSymbolicLink(link);
            return Integer.parseInt(target.getFileName().toString());
        } catch (IOException | NumberFormatException | NullPointerException e) {
            throw new IllegalStateException("cannot read the thread id from " + link + ": " + e, e);
        }
    }

    /**
     * The CPUs a thread may run on.
     *
     * @param tid a thread id, 0 for the calling thread
     * @throws IllegalStateException with errno when the kernel refuses (e.g. no such thread)
     */
    public static BitSet get(int tid) {
        long[] mask = new long[WORDS];
        try {
            Posix.sched_getaffinity(tid, WORDS * 8L, mask);
        } catch (LastErrorException e) {
            throw new IllegalStateException("sched_getaffinity(" + tid + "): errno " + e.getErrorCode(), e);
        }
        return BitSet.valueOf(mask);
    }

    /**
     * Sets the CPUs a thread may run on.
     *
     * @param tid  a thread id, 0 for the calling thread
     * @param cpus the CPUs, at least one, all below {@link #MAX_CPUS}
     * @throws IllegalArgumentException when {@code cpus} is empty or names a CPU past {@link #MAX_CPUS}
     * @throws IllegalStateException    with errno when the kernel refuses (EINVAL: none of the CPUs is
     *                                  online or allowed by the thread's cpuset; ESRCH: no such thread)
     */
    public static void set(int tid, BitSet cpus) {
        if (cpus.isEmpty() || cpus.length() > MAX_CPUS) {
            throw new IllegalArgumentException("CPU set " + cpus + " is empty or goes past CPU " + (MAX_CPUS - 1));
        }
        long[] mask = Arrays.copyOf(cpus.toLongArray(), WORDS);
        try {
            Posix.sched_setaffinity(tid, WORDS * 8L, mask);
        } catch (LastErrorException e) {
            throw new IllegalStateException("sched_setaffinity(" + tid + ", " + cpus + "): errno " + e.getErrorCode(), e);
        }
    }
}
