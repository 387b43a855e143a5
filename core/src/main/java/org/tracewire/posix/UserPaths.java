package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Paths walked with an {@link InvokingUser}'s credentials (called on the thread of
 * {@link InvokingUser#act}): directories opened one component at a time from {@code /} with
 * {@code O_NOFOLLOW} (a link followed only when root's or the user's), a file opened for writing
 * relative to its directory's descriptor and checked again on the open descriptor, small files read
 * without following a link, and the errno words of the messages.
 */
final class UserPaths {
    private final InvokingUser user;

    /** @param user the user whose credentials the calling thread has */
    UserPaths(InvokingUser user) {
        this.user = user;
    }

    /**
     * Opens a directory for the calling thread's credentials, one component at a time from {@code /}
     * ({@code O_PATH|O_DIRECTORY|O_NOFOLLOW}, each relative to the descriptor of the one before). A
     * symbolic link on the way is followed only when it belongs to root or to this user; any other
     * is refused. Missing directories are created ({@code mkdirat}, mode 0777 less the umask) when
     * {@code create}. Components {@code ..} are refused.
     *
     * @return an {@code O_PATH} descriptor of the directory (the caller closes it)
     */
    int openDirectory(Path dir, boolean create, String what) throws IOException {
        int fd = Posix.open("/", Posix.O_PATH | Posix.O_DIRECTORY | Posix.O_CLOEXEC);
        Path sofar = dir.getRoot();
        try {
            for (Path component : dir) {
                String name = component.toString();
                if (name.equals(".")) {
                    continue;
                }
                if (name.equals("..")) {
                    throw new IOException(what + ": the path must not contain '..'");
                }
                Path here = sofar.resolve(name);
                int next = openComponent(fd, name, here, sofar, create, what);
                Posix.close(fd);
                fd = next;
                sofar = here;
            }
            int r = fd;
            fd = -1;
            return r;
        } finally {
            if (fd >= 0) {
                Posix.close(fd);
            }
        }
    }

    private int openComponent(int fd, String name, Path here, Path parent, boolean create, String what)
            throws IOException {
        int flags = Posix.O_PATH | Posix.O_DIRECTORY | Posix.O_CLOEXEC;
        for (int attempt = 0; ; attempt++) {
            try {
                return Posix.openat(fd, name, flags | Posix.O_NOFOLLOW, 0);
            } catch (LastErrorException e) {
                int errno = e.getErrorCode();
                if (errno == Posix.ENOENT && create && attempt < 3) {
                    try {
                        Posix.mkdirat(fd, name, 0777);
                    } catch (LastErrorException m) {
                        if (m.getErrorCode() != Posix.EEXIST) {
                            throw new IOException(what + ": cannot create the directory " + here + " as " + user.who()
                                    + " (" + errno(m.getErrorCode()) + ")");
                        }
                    }
                    continue;
                }
                if (errno == Posix.ENOENT) {
                    throw new IOException(what + ": no directory " + here);
                }
                if (errno == Posix.EACCES) {
                    throw new IOException(what + ": " + user.who() + " cannot enter " + parent);
                }
                if (errno != Posix.ENOTDIR && errno != Posix.ELOOP) {
                    throw new IOException(what + ": cannot open " + here + " (" + errno(errno) + ")");
                }
                Posix.Stat st = stat(fd, name, what);
                if (st == null) {
                    continue; // gone meanwhile: look again
                }
                if (st.type() != Posix.Stat.S_IFLNK) {
                    throw new IOException(what + ": " + here + " is not a directory");
                }
                if (st.uid() != 0 && st.uid() != user.uid()) {
                    throw new IOException(what + ": " + here + " is a symbolic link of uid " + st.uid() + "; refused");
                }
                try {
                    // root's or the user's own link, followed with the user's credentials: what they could do alone
                    return Posix.openat(fd, name, flags, 0);
                } catch (LastErrorException f) {
                    throw new IOException(what + ": " + (f.getErrorCode() == Posix.EACCES ? user.who() + " cannot follow " + here
                            : f.getErrorCode() == Posix.ENOENT ? "no directory " + here
                            : "cannot open " + here + " (" + errno(f.getErrorCode()) + ")"));
                }
            }
        }
    }

    /** statx of a name in a directory without following a link; null when there is none. */
    static Posix.Stat stat(int dirfd, String name, String what) throws IOException {
        byte[] buf = new byte[Posix.STATX_SIZE];
        try {
            Posix.statx(dirfd, name, Posix.AT_SYMLINK_NOFOLLOW, Posix.STATX_BASIC_STATS, buf);
            return Posix.Stat.of(buf);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == Posix.ENOENT) {
                return null;
            }
            throw new IOException(what + ": cannot look at " + name + " (" + errno(e.getErrorCode()) + ")");
        }
    }

    /** statx of an open descriptor. */
    static Posix.Stat fstat(int fd) {
        byte[] buf = new byte[Posix.STATX_SIZE];
        Posix.statx(fd, "", Posix.AT_EMPTY_PATH, Posix.STATX_BASIC_STATS, buf);
        return Posix.Stat.of(buf);
    }

    private static boolean access(int dirfd, String name, int mode) {
        try {
            Posix.faccessat(dirfd, name, mode, Posix.AT_EACCESS | Posix.AT_SYMLINK_NOFOLLOW);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** An errno as a few words for messages. */
    static String errno(int errno) {
        return switch (errno) {
            case Posix.EACCES -> "permission denied";
            case Posix.EPERM -> "operation not permitted";
            case Posix.EROFS -> "read-only file system";
            case Posix.ENOSPC -> "no space left";
            default -> "errno " + errno;
        };
    }

    /**
     * Opens (or, {@code really} false, only checks) {@code file} for writing with the calling
     * thread's credentials: see {@link InvokingUser#openForWriting}.
     *
     * @return null for a check, else {fd, 1 when a FIFO else 0}
     */
    int[] openAsUser(Path file, String purpose, boolean really) throws IOException {
        String what = purpose + ": " + file;
        if (!file.isAbsolute()) {
            throw new IOException(what + ": the path must be absolute");
        }
        Path name = file.getFileName();
        Path parent = file.getParent();
        if (name == null || parent == null || name.toString().equals("..") || name.toString().equals(".")) {
            throw new IOException(what + ": not a file name");
        }
        String n = name.toString();
        int dir = openDirectory(parent, false, what);
        try {
            if (!access(dir, ".", Posix.X_OK)) {
                throw new IOException(what + ": " + user.who() + " cannot enter " + parent);
            }
            Posix.Stat existing = stat(dir, n, what);
            if (existing != null) {
                checkExisting(existing, what);
                if (!access(dir, n, Posix.W_OK)) {
                    throw new IOException(what + ": " + user.who() + " may not write it");
                }
            } else if (!access(dir, ".", Posix.W_OK | Posix.X_OK)) {
                throw new IOException(what + ": the directory " + parent + " is not writable by " + user.who());
            }
            if (!really) {
                return null;
            }
            boolean fifo = existing != null && existing.type() == Posix.Stat.S_IFIFO;
            int fd = openEntry(dir, n, existing, parent, what);
            try {
                // what we opened, not what the path named a moment ago
                Posix.Stat st = fstat(fd);
                if (existing != null) {
                    checkExisting(st, what);
                } else if (st.uid() != user.uid() && !user.isRoot() && Posix.geteuid() == 0) {
                    throw new IOException(what + ": was created as uid " + st.uid() + ", not " + user.who());
                }
                int r = fd;
                fd = -1;
                return new int[] {r, fifo ? 1 : 0};
            } finally {
                if (fd >= 0) {
                    Posix.close(fd);
                }
            }
        } finally {
            Posix.close(dir);
        }
    }

    /**
     * Opens the entry {@code n} of {@code dir} for writing, no link followed: a new file created
     * ({@link InvokingUser#FILE_MODE}), else the existing one opened (a FIFO waits up to
     * {@link InvokingUser#FIFO_READER_WAIT_NS} for its reader).
     *
     * @return the fd
     * @throws IOException naming why: a link, created meanwhile, not writable, no reader, or errno
     */
    private int openEntry(int dir, String n, Posix.Stat existing, Path parent, String what) throws IOException {
        boolean fifo = existing != null && existing.type() == Posix.Stat.S_IFIFO;
        long readerDeadline = System.nanoTime() + InvokingUser.FIFO_READER_WAIT_NS;
        while (true) {
            try {
                return existing == null
                        ? Posix.openat(dir, n, Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW
                                | Posix.O_CLOEXEC, InvokingUser.FILE_MODE)
                        : Posix.openat(dir, n, Posix.O_WRONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK
                                | Posix.O_CLOEXEC, 0);
            } catch (LastErrorException e) {
                if (fifo && e.getErrorCode() == Posix.ENXIO && System.nanoTime() < readerDeadline) {
                    sleepForReader(what);
                    continue; // no reader has the FIFO open yet (Wireshark's dumpcap opens it a moment later)
                }
                throw new IOException(what + ": " + (e.getErrorCode() == Posix.ELOOP ? "is a symbolic link; refused"
                        : e.getErrorCode() == Posix.EEXIST ? "was created meanwhile by someone else; refused"
                        : e.getErrorCode() == Posix.EACCES ? (existing == null ? "the directory " + parent
                                + " is not writable by " + user.who() : user.who() + " may not write it")
                        : fifo && e.getErrorCode() == Posix.ENXIO ? "no reader opened the FIFO within "
                                + InvokingUser.FIFO_READER_WAIT_NS / 1_000_000_000L + " s"
                        : "cannot open (" + errno(e.getErrorCode()) + ")"));
            }
        }
    }

    /**
     * An existing file may be written when it is a regular file (then truncated) or a FIFO (written
     * as a stream: Wireshark's extcap pipe) of this user's, with one link.
     */
    private void checkExisting(Posix.Stat st, String what) throws IOException {
        if (st.type() == Posix.Stat.S_IFLNK) {
            throw new IOException(what + ": is a symbolic link; refused");
        }
        if (st.type() != Posix.Stat.S_IFREG && st.type() != Posix.Stat.S_IFIFO) {
            throw new IOException(what + ": exists and is neither a regular file nor a FIFO");
        }
        if (user.isRoot()) {
            return;
        }
        if (st.uid() != user.uid()) {
            throw new IOException(what + ": exists and is not owned by " + user.who());
        }
        if (st.nlink() != 1) {
            throw new IOException(what + ": has other hard links; refused");
        }
    }

    private static void sleepForReader(String what) throws IOException {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + ": interrupted while waiting for the FIFO's reader", e);
        }
    }

    /** Reads a regular file of at most {@link InvokingUser#InvokingUser.MAX_INSPECTED} bytes relative to a directory, without following a link; null otherwise. */
    static byte[] readSmall(int dir, String name, Posix.Stat st) {
        if (st.type() != Posix.Stat.S_IFREG) {
            return null;
        }
        int fd;
        try {
            fd = Posix.openat(dir, name, Posix.O_RDONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK | Posix.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            return null;
        }
        try {
            ByteBuffer b = ByteBuffer.allocateDirect(InvokingUser.MAX_INSPECTED + 1);
            int total = 0;
            while (total <= InvokingUser.MAX_INSPECTED) {
                long r = Posix.read(fd, b.position(total).slice(), InvokingUser.MAX_INSPECTED + 1 - total);
                if (r <= 0) {
                    break;
                }
                total += (int) r;
            }
            if (total > InvokingUser.MAX_INSPECTED || fstat(fd).type() != Posix.Stat.S_IFREG) {
                return null;
            }
            byte[] out = new byte[total];
            b.position(0).get(out);
            return out;
        } catch (LastErrorException e) {
            return null;
        } finally {
            Posix.close(fd);
        }
    }
}
