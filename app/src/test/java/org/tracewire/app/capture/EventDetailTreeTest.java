package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.FixturePcapng;
import org.tracewire.testing.FixtureRecords;

/** The details tree against the kernel's own text: trace-cmd's report of a real trace.dat, and the fixture's records. */
class EventDetailTreeTest {
    @TempDir
    Path dir;

    private static List<EventRow> read(Path file) throws Exception {
        List<EventRow> rows = new ArrayList<>();
        try (FileRows in = FileRows.open(file)) {
            in.readAll(rows::addAll, () -> false);
        }
        return rows;
    }

    private static EventDetailTree.Node child(EventDetailTree.Node n, String name) {
        return n.children().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(name + " in " + n));
    }

    /** The token after {@code name=} in a kernel text, up to the next space. */
    private static String after(String body, String name) {
        int i = body.indexOf(name + "=");
        int s = i + name.length() + 1;
        int e = body.indexOf(' ', s);
        return body.substring(s, e < 0 ? body.length() : e);
    }

    @Test
    void commonFieldsFirstThenEachFieldAsTheKernelPrintsItWithItsRawValue() throws Exception {
        Path file = TestRows.schedDat(dir);
        List<String> report = TestRows.schedReport();
        List<EventRow> rows = read(file);
        assertEquals(report.size(), rows.size());
        EventDetailTree tree = new EventDetailTree();
        int switches = 0;
        int timers = 0;
        for (int i = 0; i < rows.size(); i++) {
            EventRow r = rows.get(i);
            String line = report.get(i);
            String body = line.substring(line.indexOf(": ", line.indexOf(']')) + 2);
            String flagsColumn = line.substring(line.indexOf(']') + 2, line.indexOf(']') + 7);
            List<EventDetailTree.Node> top = tree.of(r, r.record(), "t");
            assertEquals(List.of("Event", "Common fields", r.record().format().name() + " fields", "Kernel text"),
                    top.stream().map(EventDetailTree.Node::name).toList());
            EventDetailTree.Node common = top.get(1);
            assertEquals(List.of("time", "cpu", "pid", "comm", "flags"), common.children().stream().map(EventDetailTree.Node::name).toList());
            assertEquals(flagsColumn, child(common, "flags").shown(), "line " + (i + 1) + ": the flags column as the kernel prints it");
            assertEquals(Integer.toString(r.cpu()), child(common, "cpu").shown());
            assertEquals(body, top.get(3).shown(), "the kernel's text line");
            EventDetailTree.Node own = top.get(2);
            switch (r.event()) {
                case "sched:sched_switch" -> {
                    EventDetailTree.Node state = child(own, "prev_state");
                    assertEquals(after(body, "prev_state"), state.shown(), "line " + (i + 1) + ": the kernel's symbolic state");
                    assertEquals(r.fields().get("prev_state").toString(), state.raw() == null ? state.shown() : state.raw());
                    assertEquals(r.fields().get("next_comm"), child(own, "next_comm").shown(), "a comm may hold spaces");
                    switches++;
                }
                case "timer:hrtimer_start" -> {
                    EventDetailTree.Node h = child(own, "hrtimer");
                    assertEquals(after(body, "hrtimer"), h.shown(), "line " + (i + 1) + ": hex as the print fmt's %p");
                    assertEquals(Long.toUnsignedString(Long.parseUnsignedLong(h.shown(), 16)), h.raw(), "the raw value beside it");
                    EventDetailTree.Node mode = child(own, "mode");
                    assertEquals(after(body, "mode"), mode.shown(), "__print_symbolic's name");
                    assertTrue(mode.raw() != null && mode.raw().matches("\\d+"), mode.toString());
                    assertEquals(after(body, "function"), child(own, "function").shown());
                    timers++;
                }
                default -> { }
            }
        }
        assertTrue(switches > 100 && timers > 100, switches + " switches, " + timers + " timers");
    }

    @Test
    void everyFieldTextIsAPieceOfTheKernelsLine() throws Exception {
        Path file = FixturePcapng.write(dir.resolve("fixture.pcapng"), FixtureRecords.load());
        EventDetailTree tree = new EventDetailTree();
        int split = 0;
        int fields = 0;
        for (EventRow r : read(file)) {
            EventDetailTree.Node own = tree.of(r, r.record(), "t").get(2);
            for (EventDetailTree.Node f : own.children()) {
                fields++;
                if (f.raw() != null) {
                    split++;
                    assertTrue(r.text().contains(f.shown()), r.event() + " " + f + " in " + r.text());
                }
            }
        }
        assertTrue(split > fields / 10, split + " of " + fields + " fields shown otherwise than raw");
    }

    @Test
    void aRowWithoutRecordShowsItsFieldsRaw() {
        EventRow r = TestRows.sw(5, 1, 10, "a", 11, "b");
        List<EventDetailTree.Node> top = new EventDetailTree().of(r, null, "x");
        assertEquals("prev_comm: a", child(top.get(2), "prev_comm").text());
        assertNull(child(top.get(2), "prev_pid").raw());
        assertNotNull(child(top.get(1), "time").raw());
    }

    @Test
    void aSyscallsPointerArgumentShowsInHexAsTheKernelPrintsIt() {
        var format = TestRows.snapshot().format("syscalls", "sys_enter_openat");
        java.util.Map<String, Object> fields = new java.util.LinkedHashMap<>();
        fields.put("__syscall_nr", "257");
        fields.put("dfd", "4294967196");
        fields.put("filename", "94922916465744");
        fields.put("flags", "577");
        fields.put("mode", "438");
        var rec = org.tracewire.record.RecordEncoder.encode(format, TestRows.snapshot().layout(), 1, 5, 42, fields);
        StringBuilder text = new StringBuilder();
        org.tracewire.tracetext.SyscallText.append(text, rec);
        EventRow r = new EventRow(5, 1, 42, "cat", format.fullName(), text.toString(), org.tracewire.record.RecordValues.strings(rec));
        EventDetailTree.Node own = new EventDetailTree().of(r, rec, "t").get(2);
        EventDetailTree.Node filename = child(own, "filename");
        assertEquals("0x" + Long.toHexString(94922916465744L), filename.shown(), text.toString());
        assertEquals("94922916465744", filename.raw());
        assertEquals("filename: 0x" + Long.toHexString(94922916465744L) + "   [raw 94922916465744]", filename.text());
        assertEquals("0x241", child(own, "flags").shown());
    }
}
