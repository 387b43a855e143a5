package org.tracewire.app.main;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.EventRow;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.app.wireshark.WiresharkViewModel;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Opening recorded files without a GUI, a backend or root: the rows, the title, and what the other views get. */
class OpenFileTest {
    @TempDir
    Path dir;

    private MainViewModel vm() {
        MainViewModel vm = new MainViewModel(new DirectTaskExecutor(), new SessionStore(dir.resolve("config")),
                () -> java.nio.ByteOrder.LITTLE_ENDIAN, () -> {
                    throw new AssertionError("opening a file never starts the backend");
                }, cmd -> { }, Map.of("PATH", "/nonexistent"));
        vm.browser().load(Tracefs.open(Prerequisites.snapshot()));
        return vm;
    }

    /** Rows reaching the views, in order (what the timeline, latency and histogram views see). */
    private static List<EventRow> sink(MainViewModel vm) {
        List<EventRow> all = new ArrayList<>();
        vm.capture().addRowSink(all::addAll);
        return all;
    }

    @Test
    void aPcapngOfRealRecordsFillsTheViews() throws IOException {
        List<EventRecord> recs = FixtureRecords.load();
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        Path file = ContextPcapng.write(dir.resolve("fixture.pcapng"), recs, src, Map.of());
        MainViewModel vm = vm();
        List<EventRow> seen = sink(vm);
        long[] opened = {-1};
        vm.capture().openFile(file, n -> opened[0] = n);
        assertEquals(recs.size(), opened[0], vm.capture().statusProperty().get());
        assertEquals("fixture.pcapng — tracewire", vm.titleProperty().get());
        assertEquals(recs.size(), seen.size(), "every event reaches the views, in order");
        assertEquals(Math.min(recs.size(), CaptureViewModel.WINDOW), vm.capture().getRows().size());
        assertEquals(recs.size(), vm.capture().eventCountProperty().get());
        assertEquals(true, vm.capture().table().wallClockProperty().get(), "a pcapng's frames carry wall-clock times");
        assertEquals(seen.get(0).time(), vm.capture().table().timeText(seen.get(0)), "the time of day");
        assertTrue(vm.capture().statusProperty().get().startsWith(String.format("opened fixture.pcapng: %,d events", recs.size())),
                vm.capture().statusProperty().get());
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            EventRow row = seen.get(i);
            assertTrue(row.frame() > (i == 0 ? 1 : seen.get(i - 1).frame()), "packet numbers count the context frames too");
            assertEquals(r.format().fullName(), row.event());
            assertEquals(FixturePcapng.EPOCH_NS + r.timestampNs(), row.ts(), "wall clock: trace clock + the CAPTURE offset");
            assertEquals(r.cpu(), row.cpu());
            assertEquals(r.pid(), row.pid());
            assertEquals(src.tasks().comm(r.pid()), row.comm(), "comm from the file's PROCESS context");
            assertEquals(r.payload(), row.record().payload(), "the row carries its record");
        }
        assertTrue(vm.capture().getRows().stream().anyMatch(r -> r.text().startsWith("sched_switch: prev_comm=")),
                "rows carry the kernel's text");
        // the histogram view aggregates the opened events: sched_switch by CPU equals a count by hand
        vm.histogram().eventProperty().set("sched:sched_switch");
        assertTrue(vm.histogram().applyTriggerText("hist:keys=common_cpu"), vm.histogram().errorProperty().get());
        long switches = recs.stream().filter(r -> r.format().fullName().equals("sched:sched_switch")).count();
        assertEquals(switches, vm.histogram().tableProperty().get().hits());
        assertTrue(vm.latency().totalProperty().get() > 0, "latency pairs from the opened events");
    }

    @Test
    void aTraceDatOpensWithItsOwnFormatsAndTaskNames() throws IOException {
        Path file = org.tracewire.app.capture.TestRows.schedDat(dir);
        List<String> report = org.tracewire.app.capture.TestRows.schedReport();
        MainViewModel vm = vm();
        List<EventRow> seen = sink(vm);
        vm.openFile(file);
        assertEquals(701, seen.size(), vm.capture().statusProperty().get());
        assertEquals("sched.dat — tracewire", vm.titleProperty().get());
        var table = vm.capture().table();
        assertEquals(false, table.wallClockProperty().get(), "a trace.dat's times are the trace clock");
        assertEquals("Time: since boot (s)", table.timeModeLabel(org.tracewire.app.capture.EventTableViewModel.TimeMode.ABSOLUTE));
        int otherName = 0;
        for (int i = 0; i < report.size(); i++) {
            String line = report.get(i);
            EventRow r = seen.get(i);
            String body = line.substring(line.indexOf(": ", line.indexOf(']')) + 2);
            assertEquals(body, r.text(), "line " + (i + 1));
            assertEquals(0, r.frame(), "no frame numbers in a trace.dat");
            String head = line.substring(0, line.indexOf(": ", line.indexOf(']')));
            String time = head.substring(head.lastIndexOf(' ') + 1);
            assertTrue(time.matches("\\d+\\.\\d{6}"), time);
            String shown = table.timeText(r);
            assertTrue(shown.matches("\\d+\\.\\d{9}"), shown);
            long ns = Long.parseLong(shown.replace(".", ""));
            long us = Long.parseLong(time.replace(".", ""));
            assertEquals(us, Math.round(ns / 1000.0), "line " + (i + 1) + ": seconds since boot as report prints them "
                    + "(report rounds to µs): " + shown + " for " + time);
            String comm = line.substring(0, line.lastIndexOf('-', line.indexOf('['))).strip();
            if (!comm.equals(r.comm())) {
                // the report names tasks by the saved cmdlines at the end of the recording; a row by the
                // name the records gave the task at that time (a thread renamed later differs)
                assertTrue(!r.comm().startsWith("<") || comm.startsWith("<"), "line " + (i + 1) + ": " + r.comm() + " for " + comm);
                otherName++;
            }
        }
        assertTrue(otherName < report.size() / 50, otherName + " rows name their task otherwise than the report");
    }

    @Test
    void aFileThatIsNoCaptureSaysSo() throws IOException {
        Path file = Files.writeString(dir.resolve("notes.txt"), "not a capture\n");
        MainViewModel vm = vm();
        vm.openFile(file);
        assertTrue(vm.capture().statusProperty().get().contains("neither a trace.dat nor a pcapng"), vm.capture().statusProperty().get());
        assertEquals("tracewire", vm.titleProperty().get());
        assertEquals(0, vm.capture().getRows().size());
    }

    @Test
    void showInWiresharkOpensTheFileAtTheFrame() {
        assertEquals(List.of("/usr/bin/wireshark", "-r", "/tmp/a.pcapng", "-g", "42"),
                WiresharkViewModel.frameCommand("/usr/bin/wireshark", "/tmp/a.pcapng", 42, ""));
        assertEquals(List.of("wireshark", "-X", "lua_script:/p.lua", "-r", "f.pcapng", "-g", "7"),
                WiresharkViewModel.frameCommand("wireshark", "f.pcapng", 7, "/p.lua"));
    }
}
