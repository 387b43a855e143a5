package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The few libc calls the JDK does not offer on raw file descriptors: {@code open} with
 * {@code O_NONBLOCK} (or {@code O_NOFOLLOW}, {@code O_DIRECTORY}), {@code read}/{@code write} into
 * direct buffers, {@code poll}, {@code ioctl}, {@code fchown}, anonymous memory that can be given
 * back ({@code mmap}, {@code munmap}, {@code madvise}), and the user database
 * ({@code getpwuid}, {@code getgrouplist}).
 * JNA direct mapping (the fast path, one native call per Java call); failures raise
 * {@link LastErrorException} carrying errno. Linux x86-64/arm64 constants.
 */
public final class Posix {
    /** open(2) flags. */
    public static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0x40, O_EXCL = 0x80, O_NONBLOCK = 0x800,
            O_CLOEXEC = 0x80000;
    private static final boolean ARM64 = "aarch64".equals(System.getProperty("os.arch"));
    /** open(2) flags whose values differ between x86-64 and arm64. */
    public static final int O_DIRECTORY = ARM64 ? 0x4000 : 0x10000, O_NOFOLLOW = ARM64 ? 0x8000 : 0x20000;
    /** open(2) flag: a descriptor that only names a file (search permission on the way suffices). */
    public static final int O_PATH = 0x200000;
    /** errno values. */
    public static final int EINTR = 4, EAGAIN = 11, EPERM = 1, EACCES = 13, ENOENT = 2, EEXIST = 17, ENOTDIR = 20,
            ELOOP = 40, ENXIO = 6, EROFS = 30, ENOSPC = 28;
    /** The *at(2) calls' directory "the current directory", and their flags. */
    public static final int AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_EACCESS = 0x200, AT_EMPTY_PATH = 0x1000;
    /** access(2) modes. */
    public static final int W_OK = 2, X_OK = 1;
    /** The size of {@code struct statx} (the same layout on every architecture). */
    public static final int STATX_SIZE = 256;
    /** statx(2) mask: the basic fields (type, mode, nlink, uid, gid, ino, size, ...). */
    public static final int STATX_BASIC_STATS = 0x7ff;
    /** poll(2) event. */
    public static final short POLLIN = 0x1;
    /** mmap(2) protections and flags (Linux, x86-64 and arm64 alike). */
    public static final int PROT_READ = 0x1, PROT_WRITE = 0x2, MAP_SHARED = 0x01, MAP_PRIVATE = 0x02,
            MAP_ANONYMOUS = 0x20, MAP_POPULATE = 0x8000;

    static {
        Native.register("c");
    }

    private Posix() {
    }

    /** open(2). @return the fd */
    public static native int open(String path, int flags) throws LastErrorException;

    /** open(2) with a mode for {@link #O_CREAT}. @return the fd */
    public static native int open(String path, int flags, int mode) throws LastErrorException;

    /** openat(2): {@code path} relative to the directory {@code dirfd}. @return the fd */
    public static native int openat(int dirfd, String path, int flags, int mode) throws LastErrorException;

    /** mkdirat(2). */
    public static native int mkdirat(int dirfd, String path, int mode) throws LastErrorException;

    /** renameat(2): replaces {@code newpath} (itself, never what a symbolic link there names). */
    public static native int renameat(int olddirfd, String oldpath, int newdirfd, String newpath) throws LastErrorException;

    /** unlinkat(2) (flags 0: a file). */
    public static native int unlinkat(int dirfd, String path, int flags) throws LastErrorException;

    /**
     * statx(2) into {@code buf} ({@link #STATX_SIZE} bytes; read it with {@link Stat#of}).
     * {@code path} "" with {@link #AT_EMPTY_PATH} describes {@code dirfd} itself.
     */
    public static native int statx(int dirfd, String path, int flags, int mask, byte[] buf) throws LastErrorException;

    /** faccessat(2) ({@link #AT_EACCESS}: with the thread's file-system credentials). */
    public static native int faccessat(int dirfd, String path, int mode, int flags) throws LastErrorException;

    /** fchmod(2). */
    public static native int fchmod(int fd, int mode) throws LastErrorException;

    /** fsync(2). */
    public static native int fsync(int fd) throws LastErrorException;

    /** ftruncate(2). */
    public static native int ftruncate(int fd, long length) throws LastErrorException;

    /** geteuid(2). */
    public static native int geteuid();

    /** {@code PRIO_PROCESS} for {@link #setpriority}: {@code who} is a process or, on Linux, a thread id. */
    public static final int PRIO_PROCESS = 0;

    /**
     * setpriority(2): the nice value (−20..19) of a process or, on Linux, of one thread (its
     * thread id with {@link #PRIO_PROCESS}). Raising it needs no privilege.
     */
    public static native int setpriority(int which, int who, int prio) throws LastErrorException;

    /**
     * setfsuid(2): the calling thread's file-system uid (per thread on Linux; glibc does not copy
     * it to other threads). Moving it away from 0 drops the thread's file capabilities.
     * @return the previous fsuid (never fails visibly: read back with -1)
     */
    public static native int setfsuid(int fsuid);

    /** setfsgid(2), as {@link #setfsuid}. */
    public static native int setfsgid(int fsgid);

    /**
     * The raw syscall(2) with two arguments, for calls whose glibc wrapper would apply them to
     * every thread of the process ({@code setgroups}) where tracewire wants one thread only.
     */
    public static native long syscall(long number, long arg1, int[] arg2) throws LastErrorException;

    /** capget(2): {@code header} = {version, pid}; {@code data} = 2 × {effective, permitted, inheritable}. */
    public static native int capget(int[] header, int[] data) throws LastErrorException;

    /** capset(2) for the calling thread (pid 0 in {@code header}). */
    public static native int capset(int[] header, int[] data) throws LastErrorException;

    /** The syscall number of setgroups(2) (x86-64 116, arm64 159). */
    public static final long SYS_SETGROUPS = ARM64 ? 159 : 116;
    /** capget/capset header version 3 (64-bit capability sets in two 32-bit words). */
    public static final int CAPABILITY_VERSION_3 = 0x20080522;

    /**
     * The fields of a {@code struct statx} tracewire reads.
     *
     * @param mode  type and permission bits ({@code st_mode})
     * @param nlink hard links
     * @param uid   owner
     * @param gid   group
     */
    public record Stat(int mode, int nlink, int uid, int gid) {
        /** File type bits of {@link #mode}. */
        public static final int S_IFMT = 0170000, S_IFREG = 0100000, S_IFDIR = 0040000, S_IFLNK = 0120000,
                S_IFIFO = 0010000;

        /** Decodes a buffer statx filled (little- or big-endian as the host). */
        public static Stat of(byte[] buf) {
            ByteBuffer b = ByteBuffer.wrap(buf).order(ByteOrder.nativeOrder());
            return new Stat(b.getShort(28) & 0xffff, b.getInt(16), b.getInt(20), b.getInt(24));
        }

        /** The file type ({@link #S_IFREG}, ...). */
        public int type() {
            return mode & S_IFMT;
        }
    }

    /** fchown(2): owner and group of an open file (-1 leaves one unchanged). */
    public static native int fchown(int fd, int uid, int gid) throws LastErrorException;

    /**
     * getpwuid(3): the {@code struct passwd} of a uid, or a null pointer when there is none (on
     * 64-bit Linux: {@code pw_name} at offset 0, {@code pw_gid} at offset 20). Not thread-safe.
     */
    public static native Pointer getpwuid(int uid);

    /**
     * getgrouplist(3): the groups of a user, {@code group} included.
     *
     * @param groups  receives the gids
     * @param ngroups in: the room in {@code groups}; out: the number of groups
     * @return the number of groups, or -1 when {@code groups} was too small
     */
    public static native int getgrouplist(String user, int group, int[] groups, int[] ngroups);

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
        return Pointer.nativeValue(Native.getDirectBufferPointer(direct));
    }

    /** close(2). */
    public static native int close(int fd) throws LastErrorException;

    /**
     * sched_setaffinity(2): the CPUs a thread may run on.
     *
     * @param tid  the thread id ({@link CpuAffinity#currentThreadId()}), 0 for the calling thread
     * @param size bytes of {@code mask} given (8 per word)
     * @param mask {@code cpu_set_t} as 64-bit words: CPU {@code i} is bit {@code i % 64} of word {@code i / 64}
     */
    public static native int sched_setaffinity(int tid, long size, long[] mask) throws LastErrorException;

    /** sched_getaffinity(2): the CPUs a thread may run on, into {@code mask} (as for {@link #sched_setaffinity}). */
    public static native int sched_getaffinity(int tid, long size, long[] mask) throws LastErrorException;

    /** ioctl(2) with a pointer argument. */
    public static native int ioctl(int fd, long request, byte[] arg) throws LastErrorException;

    /** poll(2) on an array of {@code struct pollfd} packed as shorts (fd in the first two, host order). */
    public static native int poll(short[] fds, long nfds, int timeout) throws LastErrorException;

    /**
     * mmap(2); tracewire maps anonymous memory ({@link #MAP_PRIVATE} | {@link #MAP_ANONYMOUS},
     * fd -1, offset 0), which the kernel hands out zeroed, page by page as it is first touched, and
     * a capture's spool files ({@link #MAP_SHARED}, blocks reserved by {@link #fallocate} first).
     *
     * @param addr   a hint, 0 for none
     * @param length bytes
     * @param prot   {@link #PROT_READ} | {@link #PROT_WRITE}
     * @param flags  {@link #MAP_PRIVATE} | {@link #MAP_ANONYMOUS}, with {@link #MAP_POPULATE} to fault every
     *               page in now (one call instead of a fault per page)
     * @return the mapping's address (errno ENOMEM when there is no room)
     */
    public static native long mmap(long addr, long length, int prot, int flags, int fd, long offset)
            throws LastErrorException;

    /** munmap(2): gives a mapping (or part of one, whole pages) back to the kernel. */
    public static native int munmap(long addr, long length) throws LastErrorException;

    /**
     * mincore(2): which pages of {@code [addr, addr + length)} are resident in memory; {@code vec}
     * gets one byte per 4-KiB page, bit 0 set when resident. {@code addr} must be page-aligned;
     * errno ENOMEM when part of the range is not mapped.
     */
    public static native int mincore(long addr, long length, byte[] vec) throws LastErrorException;

    /** madvise(2) advice: drop the pages' contents and memory; the next touch maps zeroed pages. */
    public static final int MADV_DONTNEED = 4;

    /**
     * fallocate(2) with mode 0: reserves the file's blocks from {@code offset} for {@code len} bytes
     * (extending it), so writes through a shared mapping of them cannot fail for want of space
     * (errno ENOSPC here instead of SIGBUS later).
     */
    public static native int fallocate(int fd, int mode, long offset, long len) throws LastErrorException;

    /** madvise(2) on whole pages of a mapping, e.g. {@link #MADV_DONTNEED}. */
    public static native int madvise(long addr, long length, int advice) throws LastErrorException;
}
