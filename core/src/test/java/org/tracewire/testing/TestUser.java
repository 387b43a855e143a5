package org.tracewire.testing;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.tracewire.posix.InvokingUser;

/**
 * An unprivileged user for a test, as the kernel knows users: a uid and gid that no entry of the
 * user database has and no process uses (picked at random above 3,000,000), with a home directory
 * of theirs (mode 0755) in a folder of the test's. No account is made: what the kernel decides
 * (permissions, ACLs, ownership) depends on the numbers only. Processes run as the user through
 * {@code setpriv} (util-linux). Needs root (callers check, {@link Prerequisites}).
 *
 * @param uid  the user's uid
 * @param gid  its primary gid (equal to the uid)
 * @param home its home directory
 */
public record TestUser(int uid, int gid, Path home) {
    /**
     * Picks the numbers and makes the home directory {@code parent/home-UID}, the user's.
     *
     * @param parent a folder of the test's, searchable by everyone
     */
    public static TestUser create(Path parent) throws IOException {
        SecureRandom r = new SecureRandom();
        for (int attempt = 0; attempt < 100; attempt++) {
            int uid = 3_000_000 + r.nextInt(1_000_000);
            if (unused(uid)) {
                Path home = Files.createDirectory(parent.resolve("home-" + uid));
                Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.setAttribute(home, "unix:uid", uid);
                Files.setAttribute(home, "unix:gid", uid);
                return new TestUser(uid, uid, home);
            }
        }
        throw new IOException("no free uid found");
    }

    /** No database entry and no process of this uid. */
    private static boolean unused(int uid) throws IOException {
        for (String db : List.of("/etc/passwd", "/etc/group")) {
            Path p = Path.of(db);
            if (Files.isReadable(p)) {
                for (String line : Files.readAllLines(p)) {
                    String[] f = line.split(":");
                    if (f.length > 2 && f[2].equals(Integer.toString(uid))) {
                        return false;
                    }
                }
            }
        }
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                if (p.getFileName().toString().matches("\\d+")) {
                    try {
                        if ((Integer) Files.getAttribute(p, "unix:uid") == uid) {
                            return false;
                        }
                    } catch (IOException gone) {
                        // ended meanwhile
                    }
                }
            }
        }
        return true;
    }

    /** The user as tracewire acts for it (as through sudo: SUDO_UID). */
    public InvokingUser invoking() {
        return new InvokingUser(uid, gid, Set.of(gid), "SUDO_UID");
    }

    /** The command prefix that runs a program as this user ({@code setpriv}, no supplementary groups). */
    public List<String> setpriv() {
        return List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
    }

    /** Runs a command as this user, waiting for it (at most 60 s). @return its exit code */
    public int runAs(List<String> command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(setpriv());
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd + " did not end within 60 s");
        }
        return p.exitValue();
    }

    /**
     * Gives this user an entry in a file's or directory's access ACL ({@code system.posix_acl_access},
     * as {@code setfacl -m u:UID:PERM} does, with a mask that lets it count), keeping the owner, group
     * and other classes of the mode.
     *
     * @param perms 4 read, 2 write, 1 execute/search (or-ed)
     */
    public void allowInAcl(Path file, int perms) throws IOException {
        int mode = (Integer) Files.getAttribute(file, "unix:mode");
        short[][] entries = {
            {0x01, (short) ((mode >> 6) & 7), -1}, // ACL_USER_OBJ
            {0x02, (short) perms, 0},             // ACL_USER uid
            {0x04, (short) ((mode >> 3) & 7), -1}, // ACL_GROUP_OBJ
            {0x10, 7, -1},                         // ACL_MASK
            {0x20, (short) (mode & 7), -1},        // ACL_OTHER
        };
        ByteBuffer b = ByteBuffer.allocate(4 + 8 * entries.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(2); // POSIX_ACL_XATTR_VERSION
        for (short[] e : entries) {
            b.putShort(e[0]).putShort(e[1]).putInt(e[0] == 0x02 ? uid : -1);
        }
        try {
            Xattr.setxattr(file.toString(), "system.posix_acl_access", b.array(), b.capacity(), 0);
        } catch (LastErrorException e) {
            throw new IOException("setxattr system.posix_acl_access on " + file + ": errno " + e.getErrorCode());
        }
    }

    /** setxattr(2). */
    private static final class Xattr {
        static {
            Native.register("c");
        }

        static native int setxattr(String path, String name, byte[] value, long size, int flags) throws LastErrorException;
    }
}
