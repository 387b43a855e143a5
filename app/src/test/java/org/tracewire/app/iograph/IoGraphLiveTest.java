package org.tracewire.app.iograph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javafx.beans.property.SimpleObjectProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.query.CaptureOracle;
import org.tracewire.app.query.QueryViewModel;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.input.RecordInput;
import org.tracewire.store.StoreCache;
import org.tracewire.testing.Prerequisites;

/**
 * Live: a real capture ({@code tracewire capture} of sched and syscall events for 2 s, in a child
 * JVM, its own tracefs instance) opened as the app opens it; the I/O graph's counts per interval
 * equal an independent count over every record of the file (core's RecordInput) at the default
 * interval and at 1 ms, and the query view's "show these events" leaves exactly the frames of
 * {@code SELECT frame FROM sched_switch WHERE prev_pid = …} in the event table.
 */
@Tag("live")
@Tag("concurrent")
class IoGraphLiveTest {
    @Test
    void aRealCapturesIoGraphAndQuery(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireRoot();
        Path file = dir.resolve("live.pcapng");
        Path log = dir.resolve("capture.log");
        Process load = new ProcessBuilder("sh", "-c", "while :; do cat /proc/version >/dev/null; done")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Process capture;
        try {
            capture = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "org.tracewire.cli.Main", "capture",
                    "-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "-e", "syscalls:sys_enter_openat",
                    "--duration", "2", "--no-iface", "-w", file.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertTrue(capture.waitFor(120, TimeUnit.SECONDS), Files.readString(log));
        } finally {
            load.destroyForcibly().waitFor();
        }
        assertEquals(0, capture.exitValue(), Files.readString(log));
        CaptureOracle oracle = new CaptureOracle(file);
        assertTrue(oracle.events.size() > 1000, "a capture of some events: " + oracle.events.size());

        try (StoreTable table = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 30), null, Runnable::run,
                new DirectTaskExecutor())) {
            SimpleObjectProperty<StoreTable> prop = new SimpleObjectProperty<>(table);
            IoGraphViewModel io = new IoGraphViewModel(new DirectTaskExecutor(), Runnable::run);
            io.connect(prop);
            IoGraphViewModel.Graph g = io.graphProperty().get();
            assertTrue(g.points() <= IoGraphViewModel.DEFAULT_POINTS && g.points() > 100, g.points() + " points");
            for (long iv : new long[] {g.interval(), 1_000_000}) {
                io.intervalProperty().set(iv);
                Map<String, long[]> expected = oracle.perEvent(iv);
                assertEquals(expected.size(), io.graphProperty().get().lines().size());
                for (IoGraphViewModel.Line l : io.graphProperty().get().lines()) {
                    assertArrayEquals(expected.get(l.name()), l.counts(), l.name() + " per " + iv + " ns");
                }
            }
            io.getFilters().add("common_pid != 0 && prev_state & 1");
            io.perEventProperty().set(false);
            assertArrayEquals(oracle.counts(1_000_000, oracle.filter("common_pid != 0 && prev_state & 1")),
                    io.graphProperty().get().lines().get(1).counts());

            int pid = oracle.events.stream().filter(e -> e.record().format().name().equals("sched_switch"))
                    .map(e -> e.record().pid()).filter(p -> p != 0).findFirst().orElseThrow();
            QueryViewModel q = new QueryViewModel(new DirectTaskExecutor(), Runnable::run, null);
            q.connect(prop);
            q.sqlProperty().set("SELECT frame FROM sched_switch WHERE prev_pid = " + pid);
            q.run();
            assertEquals("", q.errorProperty().get());
            assertTrue(q.showEvents());
            List<Long> shown = new ArrayList<>();
            for (EventRow r : table.rowsProperty().get()) {
                shown.add(r.frame());
            }
            List<Long> expected = oracle.frames(oracle.filter("prev_pid == " + pid));
            assertTrue(!expected.isEmpty() && expected.size() < oracle.events.size());
            assertEquals(expected, shown);
            for (RecordInput.Event e : oracle.events) {
                assertTrue(e.timeNs() >= g.start() && e.timeNs() <= g.end());
            }
        }
    }
}
