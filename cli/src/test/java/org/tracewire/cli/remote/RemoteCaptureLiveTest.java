package org.tracewire.cli.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.cli.CaptureInterfaceLiveTest;
import org.tracewire.cli.Main;
import org.tracewire.input.PcapngInput;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * Issue 14's acceptance for remote capture: an OpenSSH server in a network namespace of this
 * machine is the "remote host" ({@link SshdNamespace}); its tracewire is this build, run by a
 * launcher script in a temporary {@code --remote-path} folder that execs Java with this test's
 * class path, as {@code ./tracewire} execs it with the built jars (the real launcher would start a
 * Maven build while the test's own Maven runs). {@code capture --remote root@ADDRESS} records sched
 * events there for 2 s, the local pcapng renders from the remote's context frames and tshark decodes
 * it with the generated dissector, killing the
 * ssh client mid-capture leaves no tracewire instance or process on the "remote" side, and the
 * host is left as found.
 */
@Tag("live")
@Tag("tshark")
class RemoteCaptureLiveTest {
    @TempDir
    static Path dir;
    static Tracefs top;
    static HostState before;
    static SshdNamespace sshd;
    static Path remoteBin;

    @BeforeAll
    static void startServer() throws Exception {
        top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("ssh");
        Prerequisites.requireTool("ssh-keygen");
        Prerequisites.requireTool("/usr/sbin/sshd");
        Prerequisites.requireTool("ip");
        Prerequisites.requireTool("tshark");
        before = HostState.of(top);
        sshd = SshdNamespace.start(Files.createDirectories(dir.resolve("sshd")));
        remoteBin = Files.createDirectories(dir.resolve("remote bin")); // a space: the path is quoted too
        Path launcher = remoteBin.resolve("tracewire");
        Files.writeString(launcher, "#!/bin/sh\nexec " + RemoteCommand.quote(Path.of(System.getProperty("java.home"), "bin", "java").toString())
                + " -Dtracewire.snapshot=" + RemoteCommand.quote(Prerequisites.snapshot().toString())
                + " -cp " + RemoteCommand.quote(System.getProperty("java.class.path")) + " org.tracewire.cli.Main \"$@\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (sshd != null) {
            sshd.close();
        }
        if (before != null) {
            assertEquals(before, HostState.of(top), "tracing settings, instances or interfaces changed");
        }
    }

    @Test
    void capturesOnTheRemoteAndTsharkDecodesIt() throws Exception {
        Path file = dir.resolve("remote.pcapng");
        List<String> args = new ArrayList<>(List.of("capture", "--remote", "root@" + sshd.address, "--remote-path",
                remoteBin.toString()));
        args.addAll(sshd.sshArgs());
        args.addAll(List.of("-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "--duration", "2", "-w", file.toString()));
        Run r = run(args);
        assertEquals(0, r.rc, r.err + "\nsshd: " + sshd.log());
        assertEquals("", r.out, "standard output carries only data: none with -w FILE");
        String summary = r.err.lines().filter(l -> l.startsWith("remote: ")).findFirst().orElse("");
        assertTrue(summary.startsWith("remote: "), r.err);
        System.out.println(summary); // the figures, in the test's report
        assertTrue(r.err.matches("(?s).*" + sshd.address.replace(".", "\\.") + ": capture: [0-9.]+ s, \\d+ events read.*"),
                "the remote summary is shown: " + r.err);

        long packets = 0;
        try (PcapngPacketReader reader = new PcapngPacketReader(file)) {
            while (reader.next() != null) {
                packets++;
            }
            SectionInfo s = reader.section();
            InterfaceInfo i = reader.interfaces().get(0);
            assertTrue(s.userApplication().startsWith("tracewire"), s.toString());
            assertTrue(s.comment().contains("received over ssh from root@" + sshd.address), s.comment());
            assertEquals("ftrace events of " + SectionInfo.hostName(), i.description());
            assertTrue(i.comment().matches("host .+; source MAC ..:..:..:..:..:..; trace clock mono; wall ns = trace ns - -?\\d+ "
                    + "\\(error <= \\d+ ns\\)"), i.comment());
            assertFalse(i.os().isEmpty(), "if_os");
            assertTrue(reader.statisticsDrops(0) >= 0, "the remote's statistics block arrived");
        }
        assertTrue(packets > 50, "2 s of sched events: " + packets);
        assertTrue(summary.contains("remote: " + packets + " frames"), summary);

        // the remote's context came along: the file renders from itself, every event a sched event
        Map<String, Integer> byEvent = new TreeMap<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (var it = in.events(); it.hasNext(); ) {
                var rec = it.next().record();
                var result = in.renderer().printer(rec.format()).renderDetailed(rec, in.context().printContext());
                assertFalse(result.fallback(), "rendered as the kernel prints it: " + result);
                byEvent.merge(rec.format().fullName(), 1, Integer::sum);
            }
            assertEquals(List.of(), in.context().problems());
        }
        assertEquals(Set.of("sched:sched_switch", "sched:sched_wakeup"), byEvent.keySet(), byEvent.toString());

        Path lua = dir.resolve("tracewire.lua");
        assertEquals(0, run(List.of("dissector", "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "-o", lua.toString())).rc);
        String decoded = exec("tshark", "-X", "lua_script:" + lua, "-r", file.toString(), "-Y", "tracewire");
        assertEquals(packets, decoded.lines().count(), "frames the plugin decodes: " + decoded.lines().limit(5).toList());
        String errors = exec("tshark", "-X", "lua_script:" + lua, "-r", file.toString(), "-Y", "_ws.lua.error");
        assertEquals("", errors.strip(), "Lua errors");
    }

    /**
     * A remote capture onto a local TAP, with tshark started on it 1.5 s after it appeared (the
     * remote's own CAPTURE and FORMAT frames came before): the relay's repeats give that file the
     * whole context, so it renders from itself ({@code docs/wire-format.md} §6, as a local capture).
     */
    @Test
    void aLateJoinerOnTheLocalTapGetsTheRemoteContextFromTheRepeats() throws Exception {
        String iface = "twr" + (ProcessHandle.current().pid() % 100000);
        Path file = dir.resolve("late-remote.pcapng");
        Path log = dir.resolve("tshark-late.log");
        Thread starter = CaptureInterfaceLiveTest.tsharkWhen(
                () -> Files.exists(Path.of("/sys/class/net", iface)), 1500, log, "-i", iface, "-a", "duration:4",
                "-w", file.toString());
        List<String> args = new ArrayList<>(List.of("capture", "--remote", "root@" + sshd.address, "--remote-path",
                remoteBin.toString()));
        args.addAll(sshd.sshArgs());
        args.addAll(List.of("-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "--duration", "6", "-i", iface));
        Run r = run(args);
        starter.join(30_000);
        assertEquals(0, r.rc, r.err + "\nsshd: " + sshd.log());
        long rendered = 0;
        try (PcapngInput in = PcapngInput.open(file)) {
            for (var it = in.events(); it.hasNext(); ) {
                var rec = it.next().record();
                var result = in.renderer().printer(rec.format()).renderDetailed(rec, in.context().printContext());
                assertFalse(result.fallback(), "rendered as the kernel prints it: " + result);
                rendered++;
            }
            assertTrue(in.context().hasCapture(), "CAPTURE repeated");
            assertEquals(2, in.context().catalog().formats().size(), "both FORMATs repeated");
            assertEquals(List.of(), in.context().problems());
        }
        assertTrue(rendered > 100, rendered + " events rendered; tshark: " + Files.readString(log));
        assertFalse(Files.exists(Path.of("/sys/class/net", iface)), "interface left behind");
    }

    @Test
    void aMissingRemoteTracewireIsSaidClearly() throws Exception {
        List<String> args = new ArrayList<>(List.of("capture", "--remote", "root@" + sshd.address, "--remote-path",
                "/nonexistent/tracewire dir"));
        args.addAll(sshd.sshArgs());
        args.addAll(List.of("-e", "sched:sched_switch", "--duration", "1", "-w", dir.resolve("none.pcapng").toString()));
        Run r = run(args);
        assertEquals(1, r.rc, r.err);
        assertTrue(r.err.contains("tracewire not found on " + sshd.address + " at /nonexistent/tracewire dir: "
                + "install it there or pass --remote-path"), r.err);
    }

    @Test
    void killingTheSshClientLeavesNothingOnTheRemote() throws Exception {
        List<Long> before = sshd.pids();
        List<String> instancesBefore = top.instanceNames();
        Path file = dir.resolve("killed.pcapng");
        Path log = dir.resolve("killed.log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture", "--remote", "root@" + sshd.address,
                "--remote-path", remoteBin.toString()));
        cmd.addAll(sshd.sshArgs());
        cmd.addAll(List.of("-e", "sched:sched_switch", "--duration", "60", "-w", file.toString()));
        Process local = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // tracing on the remote: the remote's first progress line has arrived
            while (!Files.readString(log).contains(sshd.address + ": capture: 1 s")) {
                assertTrue(local.isAlive(), "the local capture ended early: " + Files.readString(log));
                assertTrue(System.nanoTime() < deadline, "no progress from the remote within 30 s: " + Files.readString(log));
                Thread.sleep(50);
            }
            List<String> remoteInstances = top.instanceNames().stream().filter(n -> n.startsWith("tracewire-"))
                    .filter(n -> !instancesBefore.contains(n)).toList();
            assertFalse(remoteInstances.isEmpty(), "the remote capture's instance exists");
            Optional<ProcessHandle> ssh = local.descendants().filter(h -> h.info().command().orElse("").endsWith("/ssh"))
                    .findFirst();
            assertTrue(ssh.isPresent(), "the ssh client runs under the local capture");
            assertTrue(ssh.get().destroyForcibly(), "SIGKILL to ssh");

            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (top.instanceNames().stream().anyMatch(remoteInstances::contains) || sshd.pids().size() > before.size()) {
                assertTrue(System.nanoTime() < deadline, "left on the remote after 15 s: instances "
                        + top.instanceNames() + ", processes " + sshd.pids() + " (before: " + before + ")");
                Thread.sleep(100);
            }
            assertTrue(local.waitFor(20, TimeUnit.SECONDS), "the local capture ends when ssh dies");
            String out = Files.readString(log);
            assertEquals(1, local.exitValue(), out);
            assertTrue(out.contains("connection to root@" + sshd.address + " lost after"), out);
        } finally {
            local.destroyForcibly();
            local.waitFor(10, TimeUnit.SECONDS);
        }
        long packets = 0;
        try (PcapngPacketReader reader = new PcapngPacketReader(file)) { // closed properly: readable to its end
            while (reader.next() != null) {
                packets++;
            }
        }
        assertTrue(packets > 0, "the frames received before the kill are kept");
        assertEquals(instancesBefore, top.instanceNames(), "no tracewire instance left");
    }

    /** The extcap's tracewire-ssh interface streams into a FIFO; Wireshark closing it stops the remote capture. */
    @Test
    void extcapSshInterfaceStreamsIntoAFifoUntilItIsClosed() throws Exception {
        List<String> instancesBefore = top.instanceNames();
        Path fifo = dir.resolve("extcap.fifo");
        SshdNamespace.run("mkfifo", fifo.toString());
        List<String> seen = new ArrayList<>();
        Thread wireshark = new Thread(() -> {
            try (PcapngPacketReader in = new PcapngPacketReader(fifo)) {
                for (int n = 0; n < 20 && in.next() != null; n++) {
                    seen.add(in.interfaces().get(0).description());
                }
            } catch (IOException e) {
                seen.add(e.toString());
            }
        });
        wireshark.start();
        Run r = run(List.of("extcap", "--capture", "--extcap-interface", "tracewire-ssh", "--fifo", fifo.toString(),
                "--remote-host", sshd.address, "--remote-username", "root", "--sshkey", sshd.userKey.toString(),
                "--remote-path", remoteBin.toString(), "--ssh-options", "UserKnownHostsFile=" + sshd.knownHosts
                        + ";GlobalKnownHostsFile=/dev/null;StrictHostKeyChecking=yes",
                "--events", "sched:sched_switch,sched:sched_wakeup", "--filters", "sched:sched_switch=prev_pid >= 0"));
        wireshark.join(10_000);
        assertEquals(0, r.rc, r.err);
        assertEquals(20, seen.size(), seen.toString());
        assertTrue(seen.stream().allMatch(("ftrace events of " + SectionInfo.hostName())::equals), seen.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!top.instanceNames().equals(instancesBefore)) {
            assertTrue(System.nanoTime() < deadline, "instances left: " + top.instanceNames());
            Thread.sleep(100);
        }
    }

    record Run(int rc, String out, String err) {
    }

    static Run run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(args.toArray(String[]::new), new PrintStream(out), new PrintStream(err));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String exec(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return s;
    }
}
