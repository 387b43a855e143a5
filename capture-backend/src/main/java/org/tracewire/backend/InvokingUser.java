package org.tracewire.backend;

import com.sun.jna.LastErrorException;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.tracewire.posix.Posix;

/**
 * The user the privileged backend acts for, and the files it creates for them.
 *
 * <p>The backend runs as root (through pkexec or sudo) but acts for the user who started it, as
 * dumpcap does: pkexec sets {@code PKEXEC_UID}, sudo sets {@code SUDO_UID} and {@code SUDO_GID}
 * (both tools set these themselves; the caller cannot choose them). {@code PKEXEC_UID} wins when
 * both are set; with neither the backend acts for its own uid (root running the app). The primary
 * group (unless {@code SUDO_GID} gives it) and the supplementary groups come from the user database.
 *
 * <p>A file is written for that user only where the user could write it: {@link #openForWriting}
 * checks the permission bits the kernel would check for that uid and those groups (search on every
 * directory above, write and search on the parent), then creates the file with
 * {@code O_CREAT|O_EXCL|O_NOFOLLOW} relative to the checked directory (no race with a directory
 * renamed or replaced by a symbolic link meanwhile) and {@code fchown}s it to uid:gid, mode 0600.
 * An existing file is reused (truncated) only when it is a regular file owned by that uid with one
 * link, or written as a stream when it is such a FIFO (Wireshark's extcap pipe; opened once a reader
 * has it open, waiting up to 10 s for one); symbolic links are refused. For root every check
 * passes, except that symbolic links are still refused.
 *
 * @param uid    the invoking user's uid
 * @param gid    their primary gid, or -1 when unknown (files keep root's group; mode 0600)
 * @param groups every gid they are a member of, primary included
 * @param source where the uid came from: {@code PKEXEC_UID}, {@code SUDO_UID} or {@code process}
 */
public record InvokingUser(int uid, int gid, Set<Integer> groups, String source) {
    /** Mode of the files the backend creates (before the umask): owner read/write only, as dumpcap. */
    public static final int FILE_MODE = 0600;
    /** How long {@link #openForWriting} waits for a reader to open an existing FIFO, ns. */
    static final long FIFO_READER_WAIT_NS = 10_000_000_000L;

    /** Looks up a user's primary group and groups (the user database; a stand-in in tests). */
    public interface Accounts {
        /** @return the primary gid of {@code uid}, or -1 when the uid has no entry */
        int primaryGid(int uid);

        /** @return every gid {@code uid} is a member of, {@code gid} included (just {@code gid} without an entry) */
        Set<Integer> groups(int uid, int gid);
    }

    /** The system's user database through libc ({@code getpwuid}, {@code getgrouplist}). */
    public static final Accounts SYSTEM = new Accounts() {
        @Override
        public synchronized int primaryGid(int uid) {
            Pointer pw = Posix.getpwuid(uid);
            return pw == null ? -1 : pw.getInt(20);
        }

        @Override
        public synchronized Set<Integer> groups(int uid, int gid) {
            Pointer pw = Posix.getpwuid(uid);
            if (pw == null || gid < 0) {
                return gid < 0 ? Set.of() : Set.of(gid);
            }
            String name = pw.getPointer(0).getString(0);
            int[] n = {64};
            int[] g = new int[64];
            while (Posix.getgrouplist(name, gid, g, n) < 0) {
                g = new int[n[0] + 16];
                n[0] = g.length;
            }
            return Arrays.stream(g, 0, n[0]).boxed().collect(Collectors.toUnmodifiableSet());
        }
    };

    /** Copies {@code groups}. */
    public InvokingUser {
        groups = Set.copyOf(groups);
    }

    /**
     * The user from the environment pkexec or sudo gave the backend.
     *
     * @param env        the environment ({@code PKEXEC_UID}, {@code SUDO_UID}, {@code SUDO_GID})
     * @param processUid this process's uid, used when neither variable is set
     * @param accounts   the user database
     * @throws IllegalArgumentException when a variable is not a uid/gid (names the variable)
     */
    public static InvokingUser fromEnvironment(Map<String, String> env, int processUid, Accounts accounts) {
        String source;
        int uid;
        int gid = -1;
        if (env.get("PKEXEC_UID") != null) {
            source = "PKEXEC_UID";
            uid = number("PKEXEC_UID", env.get("PKEXEC_UID"));
        } else if (env.get("SUDO_UID") != null) {
            source = "SUDO_UID";
            uid = number("SUDO_UID", env.get("SUDO_UID"));
            if (env.get("SUDO_GID") != null) {
                gid = number("SUDO_GID", env.get("SUDO_GID"));
            }
        } else {
            source = "process";
            uid = processUid;
        }
        if (gid < 0) {
            gid = accounts.primaryGid(uid);
        }
        return new InvokingUser(uid, gid, accounts.groups(uid, gid), source);
    }

    /** {@link #fromEnvironment(Map, int, Accounts)} for this process: its environment, uid and the system's accounts. */
    public static InvokingUser current() {
        return fromEnvironment(System.getenv(), processUid(), SYSTEM);
    }

    /** This process's (real) uid, from {@code /proc/self}. */
    static int processUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalStateException("cannot read this process's uid from /proc/self: " + e, e);
        }
    }

    private static int number(String var, String value) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(var + " is not a uid/gid: '" + value + "'");
        }
    }

    /** True for root, whom no permission bit stops. */
    public boolean isRoot() {
        return uid == 0;
    }

    /**
     * Whether this user has the {@code want} permission bits (4 read, 2 write, 1 search/execute; or-ed)
     * on a file with this owner and mode, by the kernel's rule: the owner class when the uid owns
     * it, else the group class when one of the groups owns it, else the other class. Root has them all.
     *
     * @param owner    the file's uid
     * @param group    the file's gid
     * @param mode     its mode bits (only the low 9 count)
     * @param want     the permission bits wanted (1..7)
     */
    public boolean may(int owner, int group, int mode, int want) {
        if (isRoot()) {
            return true;
        }
        int bits;
        if (owner == uid) {
            bits = (mode >> 6) & 7;
        } else if (groups.contains(group)) {
            bits = (mode >> 3) & 7;
        } else {
            bits = mode & 7;
        }
        return (bits & want) == want;
    }

    /** "uid 1000" for messages. */
    private String who() {
        return "uid " + uid;
    }

    /**
     * Checks that this user may write {@code file}, without creating it: what
     * {@link #openForWriting} checks before it creates anything.
     *
     * @param file    an absolute path
     * @param purpose what the file is, for messages (e.g. {@code pcapng})
     * @throws IOException with a message naming the purpose, the path and the reason
     */
    public void checkWritable(Path file, String purpose) throws IOException {
        open(file, purpose, false);
    }

    /**
     * Opens {@code file} for writing as this user would: created (mode {@value #FILE_MODE} octal,
     * owned by uid:gid) when missing, truncated when it is this user's own regular file, written as
     * it is when it is this user's own FIFO (waiting up to {@link #FIFO_READER_WAIT_NS} for a reader
     * to open it).
     *
     * @param file    an absolute path
     * @param purpose what the file is, for messages (e.g. {@code pcapng})
     * @param extra   further options of the channel (e.g. {@code ExtendedOpenOption.DIRECT})
     * @return a channel positioned at 0 on the empty file, or a channel onto the FIFO
     * @throws IOException when the user could not write there (a directory they cannot search or
     *                     write, a symbolic link, a file they do not own, neither a regular file nor
     *                     a FIFO; a FIFO no reader opened in time), with
     *                     a message naming the purpose, the path and the reason; also when the file
     *                     system refuses an extra option (the file then exists, empty, and a call
     *                     without it reuses it)
     */
    public FileChannel openForWriting(Path file, String purpose, OpenOption... extra) throws IOException {
        return open(file, purpose, true, extra);
    }

    private FileChannel open(Path file, String purpose, boolean really, OpenOption... extra) throws IOException {
        String what = purpose + ": " + file;
        if (!file.isAbsolute()) {
            throw new IOException(what + ": the path must be absolute");
        }
        Path name = file.getFileName();
        Path parent = file.getParent();
        if (name == null || parent == null || name.toString().equals("..") || name.toString().equals(".")) {
            throw new IOException(what + ": not a file name");
        }
        int dir;
        try {
            dir = Posix.open(parent.toString(), Posix.O_RDONLY | Posix.O_DIRECTORY | Posix.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException(what + ": " + (e.getErrorCode() == Posix.ENOENT ? "no directory " + parent
                    : e.getErrorCode() == Posix.ENOTDIR ? parent + " is not a directory"
                    : "cannot open " + parent + " (errno " + e.getErrorCode() + ")"));
        }
        try {
            // the directory we hold open, by its fd: renaming or replacing the path meanwhile changes nothing
            Path dirFd = Path.of("/proc/self/fd/" + dir);
            Path realDir = Files.readSymbolicLink(dirFd);
            for (Path p = realDir.getParent(); p != null; p = p.getParent()) {
                Map<String, Object> a = Files.readAttributes(p, "unix:uid,gid,mode");
                if (!may((Integer) a.get("uid"), (Integer) a.get("gid"), (Integer) a.get("mode"), 1)) {
                    throw new IOException(what + ": " + who() + " cannot enter " + p);
                }
            }
            Map<String, Object> d = Files.readAttributes(dirFd, "unix:uid,gid,mode");
            if (!may((Integer) d.get("uid"), (Integer) d.get("gid"), (Integer) d.get("mode"), 1)) {
                throw new IOException(what + ": " + who() + " cannot enter " + realDir);
            }
            Path entry = dirFd.resolve(name.toString());
            Map<String, Object> existing;
            try {
                existing = Files.readAttributes(entry, "unix:uid,gid,mode,nlink", LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                existing = null;
            }
            if (existing != null) {
                checkExisting(existing, what);
            } else if (!may((Integer) d.get("uid"), (Integer) d.get("gid"), (Integer) d.get("mode"), 3)) {
                throw new IOException(what + ": the directory " + realDir + " is not writable by " + who());
            }
            if (!really) {
                return null;
            }
            boolean fifo = existing != null && isFifo(existing);
            int fd;
            long readerDeadline = System.nanoTime() + FIFO_READER_WAIT_NS;
            while (true) {
                try {
                    fd = existing == null
                            ? Posix.open(entry.toString(), Posix.O_WRONLY | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW
                                    | Posix.O_CLOEXEC, FILE_MODE)
                            : Posix.open(entry.toString(), Posix.O_WRONLY | Posix.O_NOFOLLOW | Posix.O_NONBLOCK
                                    | Posix.O_CLOEXEC);
                    break;
                } catch (LastErrorException e) {
                    if (fifo && e.getErrorCode() == Posix.ENXIO && System.nanoTime() < readerDeadline) {
                        sleepForReader(what);
                        continue; // no reader has the FIFO open yet (Wireshark's dumpcap opens it a moment later)
                    }
                    throw new IOException(what + ": " + (e.getErrorCode() == Posix.ELOOP ? "is a symbolic link; refused"
                            : e.getErrorCode() == Posix.EEXIST ? "was created meanwhile by someone else; refused"
                            : fifo && e.getErrorCode() == Posix.ENXIO ? "no reader opened the FIFO within "
                                    + FIFO_READER_WAIT_NS / 1_000_000_000L + " s"
                            : "cannot open (errno " + e.getErrorCode() + ")"));
                }
            }
            try {
                Path fdPath = Path.of("/proc/self/fd/" + fd);
                if (existing != null) {
                    // what we opened, not what the path named a moment ago
                    checkExisting(Files.readAttributes(fdPath, "unix:uid,gid,mode,nlink"), what);
                } else if (!isRoot()) {
                    Posix.fchown(fd, uid, gid);
                }
                OpenOption[] o = Arrays.copyOf(extra, extra.length + 1);
                o[extra.length] = StandardOpenOption.WRITE;
                FileChannel ch = FileChannel.open(fdPath, o);
                if (!fifo) {
                    ch.truncate(0);
                }
                return ch;
            } catch (LastErrorException e) {
                throw new IOException(what + ": cannot give it to " + who() + " (errno " + e.getErrorCode() + ")");
            } finally {
                Posix.close(fd);
            }
        } finally {
            Posix.close(dir);
        }
    }

    /**
     * An existing file may be written when it is a regular file (then truncated) or a FIFO (written
     * as a stream: Wireshark's extcap pipe) of this user's, with one link, writable by them.
     */
    private void checkExisting(Map<String, Object> a, String what) throws IOException {
        int mode = (Integer) a.get("mode");
        int type = mode & 0170000;
        if (type == 0120000) {
            throw new IOException(what + ": is a symbolic link; refused");
        }
        if (type != 0100000 && type != 0010000) {
            throw new IOException(what + ": exists and is neither a regular file nor a FIFO");
        }
        if (isRoot()) {
            return;
        }
        if ((Integer) a.get("uid") != uid) {
            throw new IOException(what + ": exists and is not owned by " + who());
        }
        if (((Number) a.get("nlink")).intValue() != 1) {
            throw new IOException(what + ": has other hard links; refused");
        }
        if (!may(uid, (Integer) a.get("gid"), mode, 2)) {
            throw new IOException(what + ": " + who() + " may not write it");
        }
    }

    private static boolean isFifo(Map<String, Object> a) {
        return ((Integer) a.get("mode") & 0170000) == 0010000;
    }

    private static void sleepForReader(String what) throws IOException {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + ": interrupted while waiting for the FIFO's reader", e);
        }
    }
}
