package org.tracewire.posix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.NobodysFifo;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestUser;

class InvokingUserTest {
    /** A user database of one user, 1000:1000, also in group 27. */
    static final InvokingUser.Accounts ACCOUNTS = new InvokingUser.Accounts() {
        @Override
        public int primaryGid(int uid) {
            return uid == 1000 ? 1000 : -1;
        }

        @Override
        public Set<Integer> groups(int uid, int gid) {
            return uid == 1000 ? Set.of(gid, 27) : gid < 0 ? Set.of() : Set.of(gid);
        }
    };

    @Test
    void theUserComesFromPkexecOrSudoElseTheProcess() {
        InvokingUser pk = InvokingUser.fromEnvironment(Map.of("PKEXEC_UID", "1000", "SUDO_UID", "5"), 0, ACCOUNTS);
        assertEquals(new InvokingUser(1000, 1000, Set.of(1000, 27), "PKEXEC_UID"), pk);
        InvokingUser sudo = InvokingUser.fromEnvironment(Map.of("SUDO_UID", "1000", "SUDO_GID", "50"), 0, ACCOUNTS);
        assertEquals(new InvokingUser(1000, 50, Set.of(50, 27), "SUDO_UID"), sudo);
        InvokingUser unknown = InvokingUser.fromEnvironment(Map.of("PKEXEC_UID", "4242"), 0, ACCOUNTS);
        assertEquals(new InvokingUser(4242, -1, Set.of(), "PKEXEC_UID"), unknown);
        InvokingUser self = InvokingUser.fromEnvironment(Map.of(), 0, ACCOUNTS);
        assertTrue(self.isRoot());
        assertEquals("process", self.source());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> InvokingUser.fromEnvironment(Map.of("SUDO_UID", "root"), 0, ACCOUNTS));
        assertEquals("SUDO_UID is not a uid/gid: 'root'", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> InvokingUser.fromEnvironment(Map.of("PKEXEC_UID", "-1"), 0, ACCOUNTS));
        assertThrows(IllegalArgumentException.class,
                () -> InvokingUser.fromEnvironment(Map.of("SUDO_UID", "1000", "SUDO_GID", "x"), 0, ACCOUNTS));
    }

    @Test
    void relativeAndOddPathsAreRefusedWithoutTouchingAnything() {
        InvokingUser u = new InvokingUser(1000, 1000, Set.of(1000), "test");
        IOException e = assertThrows(IOException.class, () -> u.checkWritable(Path.of("x.pcapng"), "pcapng"));
        assertEquals("pcapng: x.pcapng: the path must be absolute", e.getMessage());
        e = assertThrows(IOException.class, () -> u.checkWritable(Path.of("/"), "pcapng"));
        assertEquals("pcapng: /: not a file name", e.getMessage());
        e = assertThrows(IOException.class, () -> u.checkWritable(Path.of("/nonexistent-dir-tw/x"), "pcapng"));
        assertEquals("pcapng: /nonexistent-dir-tw/x: no directory /nonexistent-dir-tw", e.getMessage());
    }

    /**
     * As root, for the unprivileged uid 65534 (nobody): what it could not write is refused, and what
     * it could is created as its own.
     */
    @Test
    @Tag("live")
    void filesAreCreatedOnlyWhereTheUserCouldAndBelongToThem(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        InvokingUser nobody = new InvokingUser(65534, 65534, Set.of(65534), "test");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        // not writable / not reachable for nobody
        assertRefused(nobody, Path.of("/etc/tracewire-test.pcapng"), "the directory /etc is not writable by uid 65534");
        assertRefused(nobody, Path.of("/root/tracewire-test.pcapng"), "uid 65534 cannot enter /root");
        Path mine = Files.createDirectory(tmp.resolve("mine"));
        Files.setOwner(mine, mine.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        Path hidden = Files.createDirectory(tmp.resolve("hidden"));
        Files.setPosixFilePermissions(hidden, PosixFilePermissions.fromString("rwx------"));
        Path deep = Files.createDirectory(hidden.resolve("open"));
        Files.setPosixFilePermissions(deep, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertRefused(nobody, deep.resolve("x.pcapng"), "uid 65534 cannot enter " + hidden);
        // a symbolic link in its own directory, to a root file: refused, the target untouched
        Path target = Files.writeString(tmp.resolve("root-owned"), "keep");
        Files.createSymbolicLink(mine.resolve("link.pcapng"), target);
        assertRefused(nobody, mine.resolve("link.pcapng"), "is a symbolic link; refused");
        // a root-owned file in a directory nobody may write (like /tmp with its sticky bit)
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path foreign = Files.writeString(sticky.resolve("foreign.pcapng"), "keep");
        assertRefused(nobody, foreign, "exists and is not owned by uid 65534");
        // a hard link to a root file in its own directory
        Files.createLink(mine.resolve("hard.pcapng"), target);
        assertRefused(nobody, mine.resolve("hard.pcapng"), "exists and is not owned by uid 65534");
        assertEquals("keep", Files.readString(target));
        assertEquals("keep", Files.readString(foreign));
        // through root's directory symlink: followed as nobody, so what the real directory allows counts
        Files.createSymbolicLink(tmp.resolve("to-etc"), Path.of("/etc"));
        assertRefused(nobody, tmp.resolve("to-etc").resolve("x.pcapng"),
                "the directory " + tmp.resolve("to-etc") + " is not writable by uid 65534");
        // through a directory symlink of another user's: refused, whatever it points at
        Path other = Files.createSymbolicLink(tmp.resolve("others-link"), mine);
        Files.setAttribute(other, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
        assertRefused(nobody, other.resolve("x.pcapng"), other + " is a symbolic link of uid 4242; refused");

        // created where it may: owned by nobody, mode 0600
        Path out = mine.resolve("out.pcapng");
        nobody.checkWritable(out, "pcapng");
        assertFalse(Files.exists(out), "a check creates nothing");
        try (FileChannel ch = nobody.openForWriting(out, "pcapng")) {
            ch.write(ByteBuffer.wrap("first".getBytes()));
        }
        assertEquals(65534, Files.getAttribute(out, "unix:uid"));
        assertEquals(65534, Files.getAttribute(out, "unix:gid"));
        assertEquals(0600, (Integer) Files.getAttribute(out, "unix:mode") & 07777);
        // its own file again: truncated and rewritten
        try (FileChannel ch = nobody.openForWriting(out, "pcapng")) {
            ch.write(ByteBuffer.wrap("2".getBytes()));
        }
        assertEquals("2", Files.readString(out));
        // in the sticky directory: a new file is fine
        try (FileChannel ch = nobody.openForWriting(sticky.resolve("new.pcapng"), "pcapng")) {
            assertEquals(0, ch.size());
        }
        assertEquals(65534, Files.getAttribute(sticky.resolve("new.pcapng"), "unix:uid"));
    }

    /**
     * Wireshark's extcap pipe: a FIFO of the user's is written as a stream once a reader has it open
     * (not truncated); a FIFO of someone else's, or a symbolic link to the user's, is refused.
     */
    @Test
    @Tag("live")
    void aFifoOfTheUsersIsWrittenOnceItsReaderOpensIt(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTool("mkfifo");
        InvokingUser nobody = new InvokingUser(65534, 65534, Set.of(65534), "test");
        Path fifo = NobodysFifo.create(tmp, "fifo");
        Path dir = fifo.getParent();
        nobody.checkWritable(fifo, "pcapng");
        // the reader opens it a moment after the writer asked (as dumpcap does)
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(300);
                return Files.readAllBytes(fifo);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (FileChannel ch = nobody.openForWriting(fifo, "pcapng")) {
            ch.write(ByteBuffer.wrap("streamed".getBytes()));
        }
        assertEquals("streamed", new String(read.get(10, TimeUnit.SECONDS)));
        assertTrue(Files.exists(fifo) && !Files.isRegularFile(fifo), "still the FIFO");

        Path foreign = tmp.resolve("foreign-fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", "-m", "666", foreign.toString()).start().waitFor());
        assertRefused(nobody, foreign, "exists and is not owned by uid 65534");
        Files.createSymbolicLink(dir.resolve("link"), fifo);
        assertRefused(nobody, dir.resolve("link"), "is a symbolic link; refused");
    }

    /**
     * The kernel decides, with the user's credentials: a directory of mode 0777 whose ACL gives a
     * test user (a uid of no account) only {@code r-x} is refused for that user (nothing created) and open to others;
     * a root directory of mode 0755 whose ACL gives the user {@code rwx} is writable by them, and
     * the file is theirs.
     */
    @Test
    @Tag("live")
    void aclsDecideAsTheKernelDoesForTheUser(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        TestUser t = TestUser.create(tmp);
        InvokingUser u = t.invoking();
        Path denied = Files.createDirectory(tmp.resolve("denied"));
        Files.setPosixFilePermissions(denied, PosixFilePermissions.fromString("rwxrwxrwx"));
        t.allowInAcl(denied, 5); // u:UID:r-x
        assertRefused(u, denied.resolve("x.pcapng"), "the directory " + denied + " is not writable by uid " + t.uid());
        IOException e = assertThrows(IOException.class, () -> u.replaceFile(denied.resolve("y"), -1, null, ch -> { }));
        assertTrue(e.getMessage().endsWith("the directory " + denied + " is not writable by uid " + t.uid()), e.getMessage());
        try (var l = Files.list(denied)) {
            assertEquals(0, l.count(), "nothing created for the denied user");
        }
        InvokingUser nobody = new InvokingUser(65534, 65534, Set.of(65534), "test");
        nobody.openForWriting(denied.resolve("n.pcapng"), "pcapng").close();
        assertEquals(65534, Files.getAttribute(denied.resolve("n.pcapng"), "unix:uid"), "others may");

        Path granted = Files.createDirectory(tmp.resolve("granted"));
        t.allowInAcl(granted, 7); // u:UID:rwx
        assertEquals(0705, (Integer) Files.getAttribute(granted, "unix:mode") & 0707, "by its mode bits others may not write");
        try (FileChannel ch = u.openForWriting(granted.resolve("x.pcapng"), "pcapng")) {
            ch.write(ByteBuffer.wrap("acl".getBytes()));
        }
        assertEquals(t.uid(), Files.getAttribute(granted.resolve("x.pcapng"), "unix:uid"));
        assertEquals(t.gid(), Files.getAttribute(granted.resolve("x.pcapng"), "unix:gid"));
        u.replaceFile(granted.resolve("r.lua"), -1, null, ch -> ch.write(ByteBuffer.wrap("r".getBytes())));
        assertEquals(t.uid(), Files.getAttribute(granted.resolve("r.lua"), "unix:uid"));
        assertEquals("r", Files.readString(granted.resolve("r.lua")));
        // reading through act is the user's too: their file yes, root's 0600 file no
        assertEquals("r", u.act(() -> Files.readString(granted.resolve("r.lua"))));
        Path secret = Files.writeString(tmp.resolve("secret"), "root's");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        assertThrows(AccessDeniedException.class, () -> u.act(() -> Files.readString(secret)));
        assertRefused(nobody, granted.resolve("z.pcapng"), "the directory " + granted + " is not writable by uid 65534");
    }

    private static void assertRefused(InvokingUser u, Path p, String why) {
        IOException e = assertThrows(IOException.class, () -> u.openForWriting(p, "pcapng").close(), p.toString());
        assertEquals("pcapng: " + p + ": " + why, e.getMessage());
        IOException c = assertThrows(IOException.class, () -> u.checkWritable(p, "pcapng"), p.toString());
        assertEquals(e.getMessage(), c.getMessage());
    }
}
