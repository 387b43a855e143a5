package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import java.nio.ByteBuffer;

/**
 * The few libc calls the JDK does not offer on raw file descriptors: {@code open} with
 * {@code O_NONBLOCK}, {@code read}/{@code write} into direct buffers, {@code poll}, {@code ioctl}.
 * JNA direct mapping (the fast path, one native call per Java call); failures raise
 * {@link LastErrorException} carrying errno. Linux x86-64/arm64 constants.
 */
public final class Posix {
    /** open(2) flags. */
    public static final int O_RDONLY = 0, O_RDWR = 2, O_NONBLOCK = 0x800;
    /** errno values. */
    public static final int EINTR = 4, EAGAIN = 11, EPERM = 1, EACCES = 13;
    /** poll(2) event. */
    public static final short POLLIN = 0x1;

    static {
        Native.register("c");
    }

    private Posix() {
    }

    /** open(2). @return the fd */
    public static native int open(String path, int flags) throws LastErrorException;

    /** read(2) into a direct buffer from its start. @return bytes read */
    public static native long read(int fd, ByteBuffer buffer, long count) throws LastErrorException;

    /** write(2) from a direct buffer's start. @return bytes written */
    public static native long write(int fd, ByteBuffer buffer, long count) throws LastErrorException;

    /**
     * write(2) from native memory, e.g. {@link #address(ByteBuffer)} of a direct buffer plus an
     * offset (the cheapest call: no buffer object crosses into native code). The memory must stay
     * valid during the call. @return bytes written
     */
    public static native long write(int fd, long address, long count) throws LastErrorException;

    /**
     * The native address of a direct buffer's first byte (index 0, whatever its position).
     *
     * @throws IllegalArgumentException when the buffer is not direct
     */
    public static long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer");
        }
        return com.sun.jna.Pointer.nativeValue(com.sun.jna.Native.getDirectBufferPointer(direct));
    }

    /** close(2). */
    public static native int close(int fd) throws LastErrorException;

    /** ioctl(2) with a pointer argument. */
    public static native int ioctl(int fd, long request, byte[] arg) throws LastErrorException;

    /** poll(2) on an array of {@code struct pollfd} packed as shorts (fd in the first two, host order). */
    public static native int poll(short[] fds, long nfds, int timeout) throws LastErrorException;
}
