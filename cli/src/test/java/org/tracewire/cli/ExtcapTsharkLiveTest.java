package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.TestInstances;
import org.tracewire.testing.TestUser;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;

/**
 * The extcap in the real Wireshark: {@code extcap --install} into the global extcap folder
 * ({@code tshark -G folders}; Debian's 4.0 reads no other), {@code tshark -D} lists it,
 * {@code tshark -i tracewire} captures sched events into a pcapng of link type 162 (the extcap's DLT)
 * whose frame times are the events' times, in order per CPU, with their context (FORMAT frames name
 * the events), decoded by the installed Lua plugin without {@code -X lua_script}; and no instance
 * is left behind however tshark or the extcap ends. Everything installed is removed afterwards and
 * anything replaced restored.
 */
@Tag("live")
@Tag("concurrent")
@Tag("tshark")
class ExtcapTsharkLiveTest {
    private static Tracefs top;
    private static final Map<Path, byte[]> replaced = new HashMap<>();
    private static final List<Path> created = new ArrayList<>();
    private static Path extcap;

    @BeforeAll
    static void install() throws Exception {
        top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("tshark");
        Map<String, Path> folders = ExtcapInstaller.wiresharkFolders();
        extcap = folders.get("Extcap path").resolve(ExtcapInstaller.FILE_NAME);
        Path lua = folders.get("Personal Lua Plugins");
        remember(extcap);
        remember(lua.resolve("tracewire.lua"));
        remember(Path.of(System.getProperty("user.home"), ".local/lib/wireshark/plugins/tracewire.lua"));
        for (Path d = lua; d != null && !Files.exists(d); d = d.getParent()) {
            created.add(0, d);
        }
        FormatsCommandTest.Result r = FormatsCommandTest.run("extcap", "--install", "--class-path",
                ExtcapInstaller.classPath(null));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(extcap.toString()), r.out());
        assertTrue(Files.isReadable(lua.resolve("tracewire.lua")), r.out());
    }

    private static void remember(Path file) throws IOException {
        if (!replaced.containsKey(file)) {
            replaced.put(file, Files.exists(file) ? Files.readAllBytes(file) : null);
        }
    }

    @AfterAll
    static void restore() throws IOException {
        for (Map.Entry<Path, byte[]> e : replaced.entrySet()) {
            if (e.getValue() == null) {
                Files.deleteIfExists(e.getKey());
            } else {
                Files.write(e.getKey(), e.getValue());
                if (e.getKey().equals(extcap)) {
                    Files.setPosixFilePermissions(extcap, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
        }
        for (int i = created.size() - 1; i >= 0; i--) {
            try (var s = Files.list(created.get(i))) {
                if (s.findAny().isEmpty()) {
                    Files.delete(created.get(i));
                }
            }
        }
    }

    @Test
    void tsharkListsTheInterface() throws Exception {
        String d = run(List.of("tshark", "-D"), 60).out;
        assertTrue(d.contains(". tracewire (tracewire: Linux trace events)"), d);
    }

    @Test
    void capturesEventTimesInOrderDecodedByTheInstalledPlugin(@TempDir Path dir) throws Exception {
        List<String> settings = HostState.of(top).settings();
        Path file = dir.resolve("f.pcapng");
        ExtcapWatch watch = new ExtcapWatch();
        long wall0 = System.currentTimeMillis() * 1_000_000L;
        Result t = run(List.of("tshark", "-i", "tracewire", "-a", "duration:4", "-w", file.toString()), 60);
        long wall1 = System.currentTimeMillis() * 1_000_000L;
        watch.close();
        assertEquals(0, t.code, t.out);
        assertTrue(t.out.matches("(?s).*\\n[1-9]\\d* packets captured.*"), t.out);

        // the file as dumpcap wrote it from the FIFO: link type 162, tracewire frames with their context
        PcapngReader pr = new PcapngReader(Files.readAllBytes(file));
        assertEquals(162, ((ByteBuffer) pr.ofType(1).get(0).body().duplicate()
                .order(ByteOrder.nativeOrder())).getShort(0), "IDB link type: LINKTYPE_USER15");
        List<WireFrames.Decoded> frames = WireFrames.read(pr.packets());
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, long[]> last = new HashMap<>();
        int n = 0;
        int switches = 0;
        for (WireFrames.Decoded d : frames) {
            var h = d.frame().header();
            assertEquals(h.timeNs(), d.packet().timeNs(), "the frame time is the frame's (an event's) time");
            if (d.kind() == FrameKind.FORMAT && d.message() != null) {
                names.put((int) d.message().first(ContextMessage.FORMAT_ID).number(),
                        d.message().text(ContextMessage.FORMAT_NAME));
            }
            if (!d.isEvent()) {
                continue;
            }
            long time = h.timeNs();
            assertTrue(time >= wall0 && time <= wall1, "within the run: " + h);
            String event = names.get(d.frame().eventId());
            assertTrue(Set.of("sched:sched_switch", "sched:sched_wakeup").contains(event), "FORMAT before " + h + ": " + event);
            switches += event.equals("sched:sched_switch") ? 1 : 0;
            long[] prev = last.get(h.cpu());
            if (prev != null) {
                assertTrue(h.sequence() > prev[0] && time >= prev[1], "in order on cpu " + h.cpu() + ": " + h);
            }
            last.put(h.cpu(), new long[] {h.sequence(), time});
            n++;
        }
        assertTrue(n > 100 && switches > 0, n + " frames");
        // the installed plugin decodes every frame (link type 162 registered), with no Lua error
        // one pass: a line per frame the plugin decodes, with its Lua errors (none) as the one column
        Result decoded = run(List.of("tshark", "-r", file.toString(), "-Y", "tracewire", "-o",
                "gui.column.format:\"e\",\"%Cus:_ws.lua.error\""), 120);
        List<String> lines = decoded.out.lines().filter(l -> !l.startsWith("Running as user")).toList();
        assertEquals(frames.size(), lines.size(), "frames the plugin decodes");
        assertEquals(List.of(), lines.stream().filter(l -> !l.isBlank()).toList(), "Lua errors");

        watch.assertCleanedUp();
        assertEquals(settings, HostState.of(top).settings(), "top-level tracing settings changed");
    }

    @Test
    void sigintToTsharkEndsTheCaptureCleanly(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("int.pcapng");
        Path log = dir.resolve("tshark.log");
        ExtcapWatch watch = new ExtcapWatch();
        Process tshark = new ProcessBuilder("tshark", "-i", "tracewire", "-a", "duration:60", "-w", file.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long pid = watch.awaitTracing(tshark, log);
        Thread.sleep(500); // thousands of sched events
        assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(tshark.pid())).start().waitFor());
        assertTrue(tshark.waitFor(30, TimeUnit.SECONDS), "tshark ended on SIGINT");
        watch.close();
        watch.assertCleanedUp();
        assertFalse(top.instanceNames().contains("tracewire-" + pid));
        String capinfos = CaptureCommandLiveTest.run("capinfos", "-c", "-M", file.toString());
        assertTrue(capinfos.matches("(?s).*Number of packets:\\s+[1-9]\\d*.*"), capinfos);
    }

    @Test
    void aKilledExtcapsInstanceIsRemovedByItsWatchdog(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("tshark.log");
        ExtcapWatch watch = new ExtcapWatch();
        Process tshark = new ProcessBuilder("tshark", "-i", "tracewire", "-a", "duration:30", "-w",
                dir.resolve("killed.pcapng").toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long pid = watch.awaitTracing(tshark, log);
        String instance = "tracewire-" + pid;
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        for (int i = 0; i < 200 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false); i++) {
            Thread.sleep(50);
        }
        if (!tshark.waitFor(20, TimeUnit.SECONDS)) {
            tshark.destroy();
            assertTrue(tshark.waitFor(20, TimeUnit.SECONDS));
        }
        watch.close();
        for (int i = 0; i < 100 && top.instanceNames().contains(instance); i++) {
            Thread.sleep(50);
        }
        assertFalse(top.instanceNames().contains(instance), "a SIGKILLed extcap's watchdog removes its instance");

        ExtcapWatch next = new ExtcapWatch();
        Result t = run(List.of("tshark", "-i", "tracewire", "-a", "duration:3", "-w",
                dir.resolve("next.pcapng").toString()), 60);
        next.close();
        assertEquals(0, t.code, t.out);
        assertTrue(t.out.matches("(?s).*\\n[1-9]\\d* packets captured.*"), t.out);
        next.assertCleanedUp();
    }

    /**
     * Wireshark's check of a capture filter as it is typed ({@code --extcap-interface X
     * --extcap-capture-filter F}, no capture): the installed entry (no JVM) and the command answer
     * the reason as the first stdout line (the filter bar turns red), nothing for an empty filter.
     */
    @Test
    void aCaptureFilterCheckAnswersWhyNot() throws Exception {
        for (String iface : List.of(ExtcapProtocol.INTERFACE, ExtcapProtocol.INTERFACE_SSH)) {
            Result r = run(List.of(extcap.toString(), "--extcap-interface", iface, "--extcap-capture-filter", "ether proto 0x88b5"), 30);
            assertEquals(0, r.code, r.out);
            assertEquals(ExtcapProtocol.captureFilterRefusal(iface) + "\n", r.out);
            assertEquals("", run(List.of(extcap.toString(), "--extcap-interface", iface, "--extcap-capture-filter", ""), 30).out);
            FormatsCommandTest.Result j = FormatsCommandTest.run("extcap", "--extcap-interface", iface,
                    "--extcap-capture-filter", "tcp");
            assertEquals(0, j.code(), j.err());
            assertEquals(ExtcapProtocol.captureFilterRefusal(iface), j.out().strip());
        }
    }

    /** tshark given a capture filter for tracewire ends within 10 s with the extcap's reason. */
    @Test
    void aRefusedCaptureFilterEndsTsharkWithinTenSeconds(@TempDir Path dir) throws Exception {
        Bounded t = bounded(List.of("tshark", "-i", "tracewire", "-f", "ether proto 0x88b5", "-a", "duration:3",
                "-w", dir.resolve("f.pcapng").toString()), dir, 10);
        assertTrue(t.ended, "tshark still ran after 10 s: " + t.out);
        assertTrue(t.out.contains("Error by extcap pipe: tracewire: "), t.out); // tshark's exit code is its own (0 here)
        assertTrue(t.out.contains(ExtcapProtocol.captureFilterRefusal("tracewire")), t.out);
    }

    /** tshark given an event the kernel does not have ends within 10 s with the extcap's reason. */
    @Test
    void aBadEventEndsTsharkWithinTenSeconds(@TempDir Path dir) throws Exception {
        Bounded t = bounded(List.of("tshark", "-i", "tracewire", "-o", "extcap.tracewire.events:nosuchsys:nosuchevent",
                "-a", "duration:3", "-w", dir.resolve("e.pcapng").toString()), dir, 10);
        assertTrue(t.ended, "tshark still ran after 10 s: " + t.out);
        assertTrue(t.out.contains("Error by extcap pipe: tracewire: "), t.out); // tshark's exit code is its own (0 here)
        assertTrue(t.out.contains("nosuchsys"), t.out);
    }

    /**
     * An extcap that cannot capture (run by an unprivileged test user (a uid of no account), no pkexec display and no
     * SUDO_ASKPASS: no way to root) in Wireshark's arrangement (a FIFO of the user's, the extcap and
     * the capture tool reading it started together): dumpcap and tshark each end within 10 s, the
     * extcap says why.
     */
    @Test
    void anExtcapWithoutRootEndsDumpcapAndTsharkWithinTenSeconds(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("setpriv");
        Prerequisites.requireTool("dumpcap");
        Prerequisites.requireTool("mkfifo");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = readableClassPath(dir.resolve("cp"));
        TestUser u = TestUser.create(dir);
        // dumpcap's case and tshark's run at once: each its own FIFO, extcap and reader
        Map<String, CompletableFuture<Void>> cases = new HashMap<>();
        for (String reader : List.of("dumpcap", "tshark")) {
            cases.put(reader, CompletableFuture.runAsync(() -> {
                try {
                    withoutRoot(reader, dir, cp, u);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<Void> c : cases.values()) {
            try {
                c.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                Throwable t = e.getCause() instanceof IllegalStateException i && i.getCause() != null ? i.getCause() : e.getCause();
                if (t instanceof Error err) {
                    throw err;
                }
                throw (Exception) t;
            }
        }
    }

    /** One reader's case of {@link #anExtcapWithoutRootEndsDumpcapAndTsharkWithinTenSeconds}. */
    private static void withoutRoot(String reader, Path dir, String cp, TestUser u) throws Exception {
        Path fifo = dir.resolve("fifo-" + reader);
        assertEquals(0, new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).start().waitFor());
        Files.setAttribute(fifo, "unix:uid", u.uid());
        List<String> xcmd = new ArrayList<>(u.setpriv());
        xcmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dtracewire.home=" + Path.of("").toAbsolutePath().getParent(), "-cp", cp,
                "org.tracewire.cli.Main", "extcap", "--capture", "--extcap-interface", "tracewire", "--fifo", fifo.toString()));
        ProcessBuilder xb = new ProcessBuilder(xcmd);
        xb.environment().keySet().removeIf(k -> k.equals("DISPLAY") || k.equals("WAYLAND_DISPLAY")
                || k.equals("SUDO_ASKPASS") || k.startsWith("SUDO_") || k.equals("PKEXEC_UID"));
        xb.environment().put("HOME", u.home().toString());
        Path xlog = dir.resolve("extcap-" + reader + ".log");
        Process x = xb.redirectErrorStream(true).redirectOutput(xlog.toFile()).start();
        Bounded r = bounded(List.of(reader, "-i", fifo.toString(), "-a", "duration:3", "-w",
                dir.resolve(reader + ".pcapng").toString()), dir, 10);
        boolean extcapEnded = x.waitFor(10, TimeUnit.SECONDS);
        if (!extcapEnded) {
            x.destroyForcibly();
        }
        String said = Files.readString(xlog);
        assertTrue(r.ended, reader + " still ran after 10 s: " + r.out + " / extcap: " + said);
        assertTrue(extcapEnded, "the extcap still ran: " + said);
        assertEquals(1, x.exitValue(), said);
        assertTrue(said.contains("capturing needs root"), said);
    }

    /** The test JVM's class path copied where an unprivileged user can read it (~/.m2 is root's). */
    private static String readableClassPath(Path dir) throws IOException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path src = Path.of(e);
            if (!Files.exists(src)) {
                continue;
            }
            Path dst = dir.resolve(Integer.toString(n++));
            if (Files.isDirectory(src)) {
                try (var walk = Files.walk(src)) {
                    for (Path p : (Iterable<Path>) walk::iterator) {
                        Path t = dst.resolve(src.relativize(p).toString());
                        if (Files.isDirectory(p)) {
                            Files.createDirectories(t);
                        } else {
                            Files.copy(p, t);
                        }
                    }
                }
            } else {
                Files.createDirectories(dst);
                dst = dst.resolve(src.getFileName());
                Files.copy(src, dst);
            }
            entries.add(dst.toString());
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    record Bounded(boolean ended, int code, String out) {
    }

    /** Runs a command for at most {@code seconds} (killed after), its output kept in a file. */
    static Bounded bounded(List<String> cmd, Path dir, int seconds) throws Exception {
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        return new Bounded(ended, ended ? p.exitValue() : -1, Files.readString(log));
    }

    /** Collects the pids of extcap capture processes while it is open. */
    static final class ExtcapWatch implements AutoCloseable {
        final Set<Long> pids = new ConcurrentSkipListSet<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        ExtcapWatch() {
            thread = new Thread(() -> {
                while (!stop.get()) {
                    ProcessHandle.allProcesses().filter(ExtcapWatch::isExtcapCapture).forEach(p -> pids.add(p.pid()));
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "extcap-watch");
            thread.setDaemon(true);
            thread.start();
        }

        static boolean isExtcapCapture(ProcessHandle p) {
            String cmd = p.info().commandLine().orElse("");
            return cmd.contains("org.tracewire.cli.Main extcap") && cmd.contains("--capture");
        }

        /** Waits until an extcap capture traces into its instance; returns its pid. */
        long awaitTracing(Process tshark, Path log) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                for (long pid : pids) {
                    if (TestInstances.isTracing(top.root().resolve("instances/tracewire-" + pid))) {
                        return pid;
                    }
                }
                assertTrue(tshark.isAlive(), "tshark ended early: " + Files.readString(log));
                assertTrue(System.nanoTime() < deadline, "no extcap capture traced within 60 s");
                Thread.sleep(50);
            }
        }

        /** Every extcap capture seen has exited (tshark does not wait for it) and left no instance. */
        void assertCleanedUp() throws InterruptedException {
            assertFalse(pids.isEmpty(), "an extcap capture ran");
            for (long pid : pids) {
                for (int i = 0; i < 600 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false); i++) {
                    Thread.sleep(50);
                }
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "extcap " + pid + " still runs");
                assertFalse(top.instanceNames().contains("tracewire-" + pid), "instance of extcap " + pid + " left behind");
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join();
        }
    }

    record Result(int code, String out) {
    }

    static Result run(List<String> cmd, int timeoutS) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(timeoutS, TimeUnit.SECONDS), String.join(" ", cmd) + " did not end");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
