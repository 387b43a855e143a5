package org.tracewire.ringbuffer;

import com.sun.jna.LastErrorException;
import java.nio.ByteOrder;
import org.tracewire.posix.Posix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A reader of one CPU's {@code per_cpu/cpuN/trace_pipe_raw}: each successful {@code read()}
 * consumes and returns one whole sub-buffer (header and records; bytes past {@code commit} are
 * stale). The file is opened non-blocking, so {@link #readSubBuffer(ByteBuffer)} returns 0 when
 * the buffer is empty instead of blocking (a blocking read wakes on every event and returns a
 * page each time: see {@code Documentation/trace/ftrace.rst} and {@code ../shared/README.md}).
 * Reading consumes: use a tracefs instance of our own.
 *
 * <p>Uses libc {@code open}/{@code read}/{@code poll}/{@code close} through {@link Posix}, since the JDK cannot open a
 * file with {@code O_NONBLOCK}. Not thread-safe.
 */
public final class TracePipeRaw implements AutoCloseable {



    private final Path path;
    private final int cpu;
    private int fd;

    private TracePipeRaw(Path path, int cpu, int fd) {
        this.path = path;
        this.cpu = cpu;
        this.fd = fd;
    }

    /**
     * Opens {@code trace_pipe_raw} non-blocking.
     *
     * @param path the file, e.g. {@code /sys/kernel/tracing/instances/X/per_cpu/cpu0/trace_pipe_raw}
     * @param cpu  the CPU it belongs to (kept for records and messages)
     * @throws IOException with errno when it cannot be opened
     */
    public static TracePipeRaw open(Path path, int cpu) throws IOException {
        try {
            int fd = Posix.open(path.toString(), Posix.O_RDONLY | Posix.O_NONBLOCK);
            return new TracePipeRaw(path, cpu, fd);
        } catch (LastErrorException e) {
            throw new IOException("cannot open " + path + ": errno " + e.getErrorCode(), e);
        }
    }

    /** The CPU this reader belongs to. */
    public int cpu() {
        return cpu;
    }

    /**
     * Reads one sub-buffer into {@code page} (a direct buffer of at least the sub-buffer size),
     * from position 0; sets its limit to the bytes read.
     *
     * @return bytes read (a whole sub-buffer), or 0 when the ring buffer holds nothing now
     * @throws IOException on a read error other than EAGAIN
     */
    public int readSubBuffer(ByteBuffer page) throws IOException {
        if (fd < 0) {
            throw new IOException(path + " is closed");
        }
        if (!page.isDirect()) {
            throw new IllegalArgumentException("page must be a direct ByteBuffer");
        }
        page.clear();
        while (true) {
            try {
                long n = Posix.read(fd, page, page.capacity());
                page.limit((int) Math.max(0, n));
                return (int) Math.max(0, n);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == Posix.EAGAIN) {
                    page.limit(0);
                    return 0;
                }
                if (e.getErrorCode() != Posix.EINTR) {
                    throw new IOException("read " + path + ": errno " + e.getErrorCode(), e);
                }
            }
        }
    }

    /**
     * Waits until the kernel reports data to read, or the timeout passes. The kernel wakes a
     * poller of {@code trace_pipe_raw} when the instance's {@code buffer_percent} watermark is
     * reached, so callers also read after a timeout to collect partly filled sub-buffers.
     *
     * @param timeoutMs how long to wait, in ms (0: do not wait)
     * @return true when the kernel says data is ready, false on timeout
     * @throws IOException when poll fails other than by EINTR
     */
    public boolean awaitData(int timeoutMs) throws IOException {
        if (fd < 0) {
            throw new IOException(path + " is closed");
        }
        // struct pollfd { int fd; short events; short revents; } as three shorts on a little- or
        // big-endian host: the fd int is written through two shorts in host order
        short[] pfd = new short[4];
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        b.putInt(0, fd).putShort(4, Posix.POLLIN).putShort(6, (short) 0);
        for (int i = 0; i < 4; i++) {
            pfd[i] = b.getShort(i * 2);
        }
        try {
            int n = Posix.poll(pfd, 1, timeoutMs);
            return n > 0 && (pfd[3] & Posix.POLLIN) != 0;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.EINTR) {
                return false;
            }
            throw new IOException("poll " + path + ": errno " + e.getErrorCode(), e);
        }
    }

    /** Closes the file. Idempotent. */
    @Override
    public void close() {
        if (fd >= 0) {
            try {
                Posix.close(fd);
            } catch (LastErrorException ignored) {
                // nothing left to release
            }
            fd = -1;
        }
    }
}
