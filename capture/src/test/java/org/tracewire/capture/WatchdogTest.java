package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog on a stand-in instance directory (plain files where tracefs has its control files):
 * it acts only when the pipe ends without {@code done}, as when the capture's process dies.
 */
class WatchdogTest {
    private static Path instance(Path dir) throws Exception {
        Path inst = Files.createDirectories(dir.resolve("instances/tracewire-1"));
        Files.writeString(inst.resolve("tracing_on"), "1\n");
        Files.createDirectories(inst.resolve("events"));
        Files.writeString(inst.resolve("events/enable"), "1\n");
        return inst;
    }

    @Test
    void aCaptureThatCleanedUpStandsItsWatchdogDown(@TempDir Path dir) throws Exception {
        Path inst = instance(dir);
        Watchdog w = Watchdog.start(inst, 4096);
        assertTrue(w.alive());
        w.close();
        assertTrue(w.await(5), "the watchdog exits on done");
        assertEquals("1\n", Files.readString(inst.resolve("tracing_on")), "done: the instance is not touched");
        assertEquals("1\n", Files.readString(inst.resolve("events/enable")));
    }

    @Test
    void theEndOfThePipeWithoutDoneStopsTracingSavesTheSpoolAndRemovesTheUprobes(@TempDir Path dir) throws Exception {
        Path inst = instance(dir);
        Path cpu = Files.createDirectories(inst.resolve("per_cpu/cpu0"));
        Files.writeString(cpu.resolve("stats"), "entries: 0\nread events: 7\n");
        Files.write(cpu.resolve("trace_pipe_raw"), new byte[8192]);
        Path spool = Files.createDirectories(dir.resolve("out.pcapng.tw-spool"));
        Files.writeString(dir.resolve("uprobe_events"), "p:tracewire_1/open /bin/true:0x10\n"
                + "p:tracewire_12/other /bin/true:0x10\np:mine/x /bin/true:0x20\n");
        Watchdog w = Watchdog.start(inst, 4096);
        w.spool(spool);
        w.orphan(); // as the capture's death closes the pipe
        assertTrue(w.await(15), "the watchdog ends");
        assertEquals("0", Files.readString(inst.resolve("tracing_on")).strip(), "tracing stopped");
        assertEquals("0", Files.readString(inst.resolve("events/enable")).strip(), "events disabled");
        assertEquals("entries: 0\nread events: 7\n", Files.readString(spool.resolve("cpu0.stats")), "counters saved");
        assertEquals(8192, Files.size(spool.resolve("cpu0.tail")), "the kernel's unread pages saved");
        assertTrue(Files.exists(spool.resolve("watchdog.done")));
        assertFalse(w.alive());
        assertTrue(Files.readString(dir.resolve("uprobe_events")).endsWith("p:mine/x /bin/true:0x20\n-:tracewire_1/open\n"),
                "the capture's uprobes removed (only its group's): " + Files.readString(dir.resolve("uprobe_events")));
    }
}
