package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The user a privileged tracewire process acts for, and the one way it writes files for them
 * (the backend's pcapng, the installers' plugin and extcap entry, every {@code AtomicFile} write).
 *
 * <p>Run as root through pkexec or sudo, tracewire acts for the user who started it, as dumpcap
 * does: pkexec sets {@code PKEXEC_UID}, sudo sets {@code SUDO_UID} and {@code SUDO_GID} (both tools
 * set these themselves; the caller cannot choose them). {@code PKEXEC_UID} wins when both are set;
 * with neither, or in a process that is not root, it acts for its own uid. The primary group
 * (unless {@code SUDO_GID} gives it) and the supplementary groups come from the user database.
 *
 * <p>Every file access for that user is made with the user's credentials ({@link #act}: a thread
 * with the user's fsuid, fsgid, groups and no effective capabilities), so the kernel decides, ACLs
 * and all, and new files belong to the user. Paths are opened one component at a time relative to
 * the descriptor of the directory before, with {@code O_NOFOLLOW}; a symbolic link on the way is
 * followed only when it belongs to root or to the user, the last component never; files are
 * created with {@code O_CREAT|O_EXCL}, and checks are made on the open descriptor (owner, type,
 * link count). {@link #openForWriting} reuses an existing file only when it is the user's regular
 * file or FIFO with one link (Wireshark's extcap pipe: opened once a reader has it open, waiting up
 * to 10 s); {@link #replaceFile} writes a temporary file and renames it over the target.
 * docs/backend-protocol.md ("Threat model") lists every privileged write.
 * The walk along a path as the user is {@code UserPaths}'; the thread with the user's credentials
 * {@code UserThread}'s.
 *
 * @param uid    the invoking user's uid
 * @param gid    their primary gid, or -1 when unknown (then files get group 65534)
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
        if (processUid != 0) {
            // only root acts for another user; the variables mean nothing to anyone else
            source = "process";
            uid = processUid;
        } else if (env.get("PKEXEC_UID") != null) {
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
        return fromEnvironment(System.getenv(), Posix.geteuid(), SYSTEM);
    }

    /** This process's own identity (its effective uid), whatever the environment says: root writing for root. */
    public static InvokingUser process() {
        return fromEnvironment(Map.of(), Posix.geteuid(), SYSTEM);
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

    /** True for root. */
    public boolean isRoot() {
        return uid == 0;
    }

    /** True when this process is root acting for another user (through sudo or pkexec). */
    public boolean actsForAnother() {
        return uid != Posix.geteuid();
    }

    /**
     * Opens an output file a command writes ({@code capture -w}, {@code import -w}, {@code merge -w}):
     * as the invoking user ({@link #openForWriting}) when this process is root acting for another
     * user, else created or truncated as this process.
     *
     * @param file    the file
     * @param purpose what it is, for messages
     * @param extra   further options of the channel
     * @return a channel on the empty file (or onto the user's FIFO)
     * @throws IOException when it cannot or may not be opened, saying why
     */
    public static FileChannel openOutput(Path file, String purpose, OpenOption... extra) throws IOException {
        InvokingUser u = current();
        if (u.actsForAnother()) {
            return u.openForWriting(file.toAbsolutePath(), purpose, extra);
        }
        OpenOption[] o = Arrays.copyOf(extra, extra.length + 3);
        o[extra.length] = StandardOpenOption.CREATE;
        o[extra.length + 1] = StandardOpenOption.WRITE;
        o[extra.length + 2] = StandardOpenOption.TRUNCATE_EXISTING;
        return FileChannel.open(file, o);
    }

    /**
     * Removes an output file a command wrote earlier (the oldest file of a capture's ring): with the
     * invoking user's credentials ({@link #act}) when this process is root acting for another user,
     * the directory opened one component at a time and the name unlinked relative to it (a link is
     * removed, never followed), else as this process. A file already gone is not an error.
     *
     * @param file    the file
     * @param purpose what it is, for messages
     * @throws IOException when it cannot (or may not) be removed, saying why
     */
    public static void deleteOutput(Path file, String purpose) throws IOException {
        InvokingUser u = current();
        if (!u.actsForAnother()) {
            Files.deleteIfExists(file);
            return;
        }
        Path abs = file.toAbsolutePath();
        String what = purpose + ": " + abs;
        if (abs.getParent() == null || abs.getFileName() == null) {
            throw new IOException(what + ": not a file name");
        }
        u.act(() -> {
            int dir = new UserPaths(u).openDirectory(abs.getParent(), false, what);
            try {
                Posix.unlinkat(dir, abs.getFileName().toString(), 0);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.ENOENT) {
                    throw new IOException(what + ": cannot remove it as " + u.who() + " (" + UserPaths.errno(e.getErrorCode()) + ")");
                }
            } finally {
                Posix.close(dir);
            }
            return null;
        });
    }

    /** "uid 1000" for messages. */
    String who() {
        return "uid " + uid;
    }

    /**
     * This user's home directory: {@code user.home} when the process acts for itself, else the
     * user database's ({@code getpwuid}).
     *
     * @throws IOException when the user has no entry or no home there
     */
    public Path home() throws IOException {
        if ("process".equals(source) || uid == Posix.geteuid()) {
            return Path.of(System.getProperty("user.home"));
        }
        synchronized (SYSTEM) {
            Pointer pw = Posix.getpwuid(uid);
            Pointer dir = pw == null ? null : pw.getPointer(32); // pw_dir on 64-bit Linux
            String home = dir == null ? null : dir.getString(0);
            if (home == null || !home.startsWith("/")) {
                throw new IOException(who() + " has no home directory in the user database");
            }
            return Path.of(home);
        }
    }

    /** File-system work done with a user's credentials. */
    @FunctionalInterface
    public interface AsUser<T> {
        /** @return the result @throws IOException when the work fails */
        T call() throws IOException;
    }

    /** Writes a file's content into an open channel (positioned at 0, on the empty file). */
    @FunctionalInterface
    public interface Content {
        /** @throws IOException when writing fails */
        void writeTo(FileChannel channel) throws IOException;
    }

    /**
     * Runs {@code work} so that the kernel checks every file-system access it makes as this user's,
     * ACLs and all. When this process already is the user (its effective user.uid()), directly. When it is
     * root acting for another user, on a fresh thread whose file-system credentials are this user's:
     * its supplementary groups (raw {@code setgroups}, which Linux keeps per thread; glibc's wrapper
     * would change every thread), {@code setfsgid}, {@code setfsuid} (per thread; read back), and an
     * empty effective capability set ({@code capset}, per thread), so that neither
     * {@code CAP_DAC_OVERRIDE} nor {@code CAP_SYS_PTRACE} (magic links in {@code /proc}) nor any other
     * capability helps it. Files it creates belong to the user (fsuid, fsgid). The thread ends with
     * the work, so no thread of the process ever goes back to root's credentials. A user without a
     * primary group acts with gid 65534. A file descriptor it opens serves the whole process.
     *
     * @throws IOException what {@code work} throws, or when the credentials cannot be taken on (a
     *                     process that is not root cannot act for another user)
     */
    public <T> T act(AsUser<T> work) throws IOException {
        return UserThread.act(this, work);
    }

    /**
     * Checks that this user may write {@code file}, without creating it: what
     * {@link #openForWriting} checks before it creates anything (with this user's credentials).
     *
     * @param file    an absolute path
     * @param purpose what the file is, for messages (e.g. {@code pcapng})
     * @throws IOException with a message naming the purpose, the path and the reason
     */
    public void checkWritable(Path file, String purpose) throws IOException {
        act(() -> new UserPaths(this).openAsUser(file, purpose, false));
    }

    /**
     * Opens {@code file} for writing as this user would (with their credentials, {@link #act}):
     * created (mode {@value #FILE_MODE} octal, owned by the user) when missing, truncated when it is
     * this user's own regular file with one link, written as it is when it is this user's own FIFO
     * with one link (waiting up to {@link #FIFO_READER_WAIT_NS} for a reader to open it). The
     * directories above are opened one by one (one component at a time, {@code UserPaths}); the file relative to its
     * directory's descriptor with {@code O_NOFOLLOW} ({@code O_CREAT|O_EXCL} when new); the checks
     * are made again on the open descriptor.
     *
     * @param file    an absolute path
     * @param purpose what the file is, for messages (e.g. {@code pcapng})
     * @param extra   further options of the channel (e.g. {@code ExtendedOpenOption.DIRECT})
     * @return a channel positioned at 0 on the empty file, or a channel onto the FIFO
     * @throws IOException when the user could not write there (a directory they cannot search or
     *                     write, a symbolic link, a file they do not own, neither a regular file nor
     *                     a FIFO; a FIFO no reader opened in time), with a message naming the
     *                     purpose, the path and the reason; also when the file system refuses an
     *                     extra option (the file then exists, empty, and a call without it reuses it)
     */
    public FileChannel openForWriting(Path file, String purpose, OpenOption... extra) throws IOException {
        int[] opened = act(() -> new UserPaths(this).openAsUser(file, purpose, true));
        int fd = opened[0];
        try {
            OpenOption[] o = Arrays.copyOf(extra, extra.length + 1);
            o[extra.length] = StandardOpenOption.WRITE;
            // the very file the user's credentials opened (the descriptor, not the path)
            FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd), o);
            if (opened[1] == 0) {
                ch.truncate(0);
            }
            return ch;
        } finally {
            Posix.close(fd);
        }
    }

    /** The largest existing file {@link #replaceFile} reads for its {@code mayReplace} test, bytes. */
    public static final int MAX_INSPECTED = 1 << 20;

    /**
     * Replaces a file atomically as this user ({@link #act}): missing directories are created
     * (one component at a time, {@code UserPaths}); the new content goes into a temporary file beside the target,
     * created relative to the directory's descriptor with {@code O_CREAT|O_EXCL|O_NOFOLLOW}, written
     * (by {@code content}), forced to disk, given its mode ({@code fchmod}) and renamed over the
     * target ({@code renameat}: a symbolic link there is replaced, never followed). So a reader sees
     * the old file or the new one; the file belongs to the user; nothing outside what the user could
     * write is touched, however the path's links change meanwhile.
     *
     * @param target     the file (made absolute against the working directory)
     * @param mode       its permission bits, or -1 to keep those of the regular file it replaces
     *                   (0644 for a new one)
     * @param mayReplace when not null, an existing entry is replaced only when it is a regular file
     *                   of at most {@link #MAX_INSPECTED} bytes whose content passes this test
     * @param content    writes the new content
     * @return the file, absolute
     * @throws IOException when the user may not write there, the existing file fails {@code mayReplace}
     *                     ("exists and was not written by tracewire; not replacing it"), or writing
     *                     fails; the temporary file is then removed and the target left as it was
     */
    public Path replaceFile(Path target, int mode, Predicate<byte[]> mayReplace, Content content)
            throws IOException {
        Path abs = target.toAbsolutePath();
        Path parent = abs.getParent();
        String n = abs.getFileName() == null ? "" : abs.getFileName().toString();
        if (parent == null || n.isEmpty() || n.equals(".") || n.equals("..")) {
            throw new IOException(abs + ": not a file name");
        }
        String what = abs.toString();
        String tmp = "." + n + "." + Long.toHexString(new SecureRandom().nextLong()) + ".tmp";
        int[] opened = openTemporary(parent, n, tmp, mode, mayReplace, what);
        int dir = opened[0];
        int fd = opened[1];
        boolean done = false;
        try {
            try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.WRITE)) {
                content.writeTo(ch);
                ch.force(true);
            }
            act(() -> {
                try {
                    Posix.fchmod(fd, opened[2]);
                    Posix.renameat(dir, tmp, dir, n);
                    return null;
                } catch (LastErrorException e) {
                    throw new IOException(what + ": cannot replace it as " + who() + " (" + UserPaths.errno(e.getErrorCode()) + ")");
                }
            });
            done = true;
            return abs;
        } finally {
            Posix.close(fd);
            if (!done) {
                try {
                    act(() -> Posix.unlinkat(dir, tmp, 0));
                } catch (IOException | LastErrorException ignored) {
                    // nothing more to do: the target is as it was
                }
            }
            Posix.close(dir);
        }
    }

    /**
     * As the user: opens {@code parent} (no link followed) and creates the temporary file
     * {@code tmp} in it, after checking the entry {@code n} it will replace.
     *
     * @return the directory's fd, the temporary file's fd, the permission bits the file gets
     * @throws IOException when the directory is not writable by the user, the existing file fails
     *                     {@code mayReplace}, or the file cannot be created
     */
    private int[] openTemporary(Path parent, String n, String tmp, int mode, Predicate<byte[]> mayReplace, String what)
            throws IOException {
        return act(() -> {
            int dir = new UserPaths(this).openDirectory(parent, true, what);
            try {
                Posix.Stat existing = UserPaths.stat(dir, n, what);
                int perms = mode >= 0 ? mode : existing != null && existing.type() == Posix.Stat.S_IFREG
                        ? existing.mode() & 07777 : 0644;
                if (existing != null && mayReplace != null && !mayReplace.test(UserPaths.readSmall(dir, n, existing))) {
                    throw new IOException(what + ": exists and was not written by tracewire; not replacing it");
                }
                int fd = Posix.openat(dir, tmp, Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL | Posix.O_NOFOLLOW
                        | Posix.O_CLOEXEC, 0600);
                return new int[] {dir, fd, perms};
            } catch (LastErrorException e) {
                Posix.close(dir);
                throw new IOException(what + ": " + (e.getErrorCode() == Posix.EACCES
                        ? "the directory " + parent + " is not writable by " + who() : "cannot create (" + UserPaths.errno(e.getErrorCode()) + ")"));
            } catch (IOException | RuntimeException e) {
                Posix.close(dir);
                throw e;
            }
        });
    }

    /**
     * {@link #replaceFile(Path, int, java.util.function.Predicate, Content)} with the content given.
     *
     * @return the file, absolute
     * @throws IOException as that method
     */
    public Path replaceFile(Path target, int mode, Predicate<byte[]> mayReplace, byte[] content)
            throws IOException {
        return replaceFile(target, mode, mayReplace, ch -> {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        });
    }

    /**
     * Removes a file as this user when {@code isOurs} accepts its content (as {@link #replaceFile}'s
     * {@code mayReplace}); a symbolic link is never followed.
     *
     * @return true when removed, false when there was none
     * @throws IOException when it is not ours ("was not written by tracewire; not removing it") or
     *                     the user may not remove it
     */
    public boolean removeFile(Path target, Predicate<byte[]> isOurs) throws IOException {
        Path abs = target.toAbsolutePath();
        String n = abs.getFileName().toString();
        String what = abs.toString();
        return act(() -> {
            int dir;
            try {
                dir = new UserPaths(this).openDirectory(abs.getParent(), false, what);
            } catch (IOException e) {
                if (e.getMessage().contains(": no directory ")) {
                    return false;
                }
                throw e;
            }
            try {
                Posix.Stat st = UserPaths.stat(dir, n, what);
                if (st == null) {
                    return false;
                }
                if (!isOurs.test(UserPaths.readSmall(dir, n, st))) {
                    throw new IOException(what + ": was not written by tracewire; not removing it");
                }
                Posix.unlinkat(dir, n, 0);
                return true;
            } catch (LastErrorException e) {
                throw new IOException(what + ": cannot remove it as " + who() + " (" + UserPaths.errno(e.getErrorCode()) + ")");
            } finally {
                Posix.close(dir);
            }
        });
    }
}
