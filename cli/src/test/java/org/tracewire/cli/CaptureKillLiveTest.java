package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * A capture killed with SIGKILL cannot clean up itself: its TAP interface goes with its file
 * descriptor (the kernel removes a non-persistent TAP), and its watchdog ({@code Watchdog}) stops
 * its tracing and removes its instance at once; afterwards the host is as it was.
 */
@Tag("live")
class CaptureKillLiveTest {
    @Test
    void aKilledCapturesWatchdogRemovesItsInstanceAtOnce(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        String iface = "twk" + (ProcessHandle.current().pid() % 100000);
        Process child = startCapture(top, iface, dir.resolve("killed.pcapng"), dir.resolve("child.log"));
        String instance = "tracewire-" + child.pid();
        Thread.sleep(500);
        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
        for (int i = 0; i < 100 && Files.exists(Path.of("/sys/class/net", iface)); i++) {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(Path.of("/sys/class/net", iface)), "the kernel removes the TAP with its fd");
        for (int i = 0; i < 100 && top.instanceNames().contains(instance); i++) {
            Thread.sleep(20);
        }
        assertFalse(top.instanceNames().contains(instance), "the watchdog removes the instance within 2 s");
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");

        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_switch", "--duration", "1", "--no-iface", "-w",
                dir.resolve("next.pcapng").toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, rc);
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");
    }

    /** SIGTERM (and Ctrl-C) stop the capture cleanly: instance and interface removed, the pcapng complete. */
    @Test
    void sigtermCleansUpAndFinishesThePcapng(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("capinfos");
        HostState before = HostState.of(top);
        String iface = "twe" + (ProcessHandle.current().pid() % 100000);
        Path file = dir.resolve("term.pcapng");
        Process child = startCapture(top, iface, file, dir.resolve("child.log"));
        String instance = "tracewire-" + child.pid();
        Thread.sleep(1000);
        child.destroy();
        assertTrue(child.waitFor(20, TimeUnit.SECONDS));
        assertFalse(top.instanceNames().contains(instance), "instance left after SIGTERM");
        assertFalse(Files.exists(Path.of("/sys/class/net", iface)), "interface left after SIGTERM");
        String capinfos = CaptureCommandLiveTest.run("capinfos", "-c", "-M", file.toString());
        assertTrue(capinfos.matches("(?s).*Number of packets:\\s+[1-9]\\d*.*"), capinfos);
        String log = Files.readString(dir.resolve("child.log"));
        assertTrue(log.contains("lost events:"), "the summary line is printed on SIGTERM too: " + log);
        assertEquals(List.of(), HostState.of(top).leftSince(before));
    }

    /** Starts a capture in a child JVM (its own pid, so its own instance) and waits until it traces. */
    static Process startCapture(Tracefs top, String iface, Path pcapng, Path log) throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture", "-e", "sched:sched_switch",
                "--duration", "60", "-i", iface, "-w", pcapng.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String instance = "tracewire-" + child.pid();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(top.instanceNames().contains(instance) && Files.exists(Path.of("/sys/class/net", iface)))) {
            assertTrue(child.isAlive(), "the capture ended early: " + Files.readString(log));
            assertTrue(System.nanoTime() < deadline, "the capture did not start within 30 s");
            Thread.sleep(50);
        }
        return child;
    }
}
