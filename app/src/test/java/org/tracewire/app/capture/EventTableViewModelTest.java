package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.format.TaskFields;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

class EventTableViewModelTest {
    private static CaptureViewModel withFixture() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        vm.table().setRecords(TestRows.records());
        vm.accept(TestRows.fixture());
        vm.flush();
        return vm;
    }

    @Test
    void kernelFilterOverRowFieldsMatchesTheRecordsItCameFrom() {
        CaptureViewModel vm = withFixture();
        EventTableViewModel t = vm.table();
        List<EventRecord> records = FixtureRecords.load();
        assertEquals(records.size(), t.getItems().size());

        int pid = records.get(records.size() / 2).pid();
        t.filterTextProperty().set("common_pid == " + pid);
        long expected = records.stream().filter(r -> r.pid() == pid).count();
        assertTrue(expected > 0);
        assertEquals(expected, t.getItems().size());
        assertTrue(t.getItems().stream().allMatch(r -> r.pid() == pid));

        // prev_state only exists in sched_switch: other events' rows do not pass
        t.filterTextProperty().set("prev_state & 1 && next_pid != 0");
        long switches = records.stream().filter(r -> r.format().name().equals("sched_switch"))
                .filter(r -> (r.integer(r.format().field("prev_state")) & 1) != 0 && r.integer(r.format().field("next_pid")) != 0)
                .count();
        assertTrue(switches > 0);
        assertEquals(switches, t.getItems().size());

        // COMM: the row's task name (TestRows names every task "task<pid>")
        t.filterTextProperty().set("COMM == \"task" + pid + "\" && CPU == " + records.get(records.size() / 2).cpu());
        int cpu = records.get(records.size() / 2).cpu();
        assertEquals(records.stream().filter(r -> r.pid() == pid && r.cpu() == cpu).count(), t.getItems().size());
    }

    @Test
    void aSyntaxErrorIsShownAtItsPositionAndKeepsThePreviousFilter() {
        CaptureViewModel vm = withFixture();
        EventTableViewModel t = vm.table();
        t.filterTextProperty().set("CPU == 0");
        int cpu0 = t.getItems().size();
        t.filterTextProperty().set("CPU == 0 && (");
        assertEquals(13, t.filterErrorPositionProperty().get());
        assertTrue(t.filterErrorProperty().get().contains("^"), t.filterErrorProperty().get());
        assertEquals(cpu0, t.getItems().size());
        t.filterTextProperty().set("");
        assertEquals("", t.filterErrorProperty().get());
        assertEquals(vm.getRows().size(), t.getItems().size());
    }

    @Test
    void aFilterNoEventShownTakesKeepsTheLastValidOneAndSaysWhere() {
        CaptureViewModel vm = withFixture();
        EventTableViewModel t = vm.table();
        t.filterTextProperty().set("CPU == 1");
        int cpu1 = t.getItems().size();
        assertTrue(cpu1 > 0 && cpu1 < vm.getRows().size());
        // a field no event has: not an empty table but an error at the field, and the CPU filter stays
        t.filterTextProperty().set("CPU == 1 && no_such_field == 3");
        assertEquals(cpu1, t.getItems().size(), "the last valid filter stays in force");
        assertEquals(12, t.filterErrorPositionProperty().get(), t.filterErrorProperty().get());
        String err = t.filterErrorProperty().get();
        assertTrue(err.contains("no_such_field") && err.contains("^") && err.contains("keeps the last valid filter: CPU == 1"), err);
        // a string field compared with a number: no event takes it either
        t.filterTextProperty().set("prev_comm > 3");
        assertEquals(cpu1, t.getItems().size());
        assertEquals(0, t.filterErrorPositionProperty().get(), t.filterErrorProperty().get());
        // the event restriction still applies on top of the kept filter
        t.eventRestrictionProperty().set("sched:sched_switch");
        assertEquals(vm.getRows().stream().filter(r -> r.cpu() == 1 && r.event().equals("sched:sched_switch")).count(),
                t.getItems().size());
        t.eventRestrictionProperty().set(null);
        // a filter some events take is valid: the others' rows do not pass
        t.filterTextProperty().set("prev_pid >= 0");
        assertEquals("", t.filterErrorProperty().get());
        assertEquals(vm.getRows().stream().filter(r -> r.event().equals("sched:sched_switch")).count(), t.getItems().size());
    }

    @Test
    void contextMenuFiltersCombine() {
        CaptureViewModel vm = withFixture();
        EventTableViewModel t = vm.table();
        EventRow r = vm.getRows().get(100);
        t.filterOnPid(r);
        t.filterOnCpu(r);
        assertEquals("(common_pid == " + r.pid() + ") && CPU == " + r.cpu(), t.filterTextProperty().get());
        t.filterOnEvent(r);
        long expected = vm.getRows().stream().filter(x -> x.pid() == r.pid() && x.cpu() == r.cpu() && x.event().equals(r.event())).count();
        assertEquals(expected, t.getItems().size());
        t.clearFilters();
        EventRow sw = vm.getRows().stream().filter(x -> x.event().equals("sched:sched_switch")
                && !x.fields().get("next_pid").equals("0")).findFirst().orElseThrow();
        int next = Integer.parseInt(sw.fields().get("next_pid").toString());
        t.followThread(new EventRow(0, 0, next, "x", "e", "", java.util.Map.of()));
        // the rows of the task and those naming it (TaskFields: next_pid, a wakeup's pid, a fork's child_pid, …)
        List<EventRow> expectedRows = new ArrayList<>();
        Set<String> naming = new TreeSet<>();
        RowRecords formats = TestRows.records();
        for (EventRow x : vm.getRows()) {
            boolean named = false;
            for (TaskFields.TaskField tf : TaskFields.of(formats.format(x.event()))) {
                if (!tf.pid().common() && num(x, tf.pid().name()) == next) {
                    named = true;
                    naming.add(x.event() + "." + tf.pid().name());
                }
            }
            if (x.pid() == next || named) {
                expectedRows.add(x);
            }
        }
        assertEquals(expectedRows, new ArrayList<>(t.getItems()));
        assertTrue(t.getItems().contains(sw));
        assertTrue(naming.contains("sched:sched_switch.next_pid") && naming.size() >= 2, naming.toString());
    }

    private static long num(EventRow r, String k) {
        Object v = r.fields().get(k);
        return v == null ? Long.MIN_VALUE : Long.parseLong(v.toString());
    }

    @Test
    void findWrapsBothWays() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        vm.accept(CaptureViewModelTest.batch(0, 100));
        vm.flush();
        EventTableViewModel t = vm.table();
        t.findTextProperty().set("ROW 5");  // rows 5, 50..59
        assertEquals(5, t.find(-1, true));
        assertEquals(50, t.find(5, true));
        assertEquals(5, t.find(59, true), "wraps");
        assertEquals(59, t.find(5, false), "wraps backwards");
        assertEquals(58, t.find(59, false));
        t.findTextProperty().set("nothing like it");
        assertEquals(-1, t.find(0, true));
    }

    @Test
    void theSelectionStaysOnItsRowAndIsDroppedWhenEvicted() {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        vm.accept(CaptureViewModelTest.batch(0, 1000));
        vm.flush();
        EventTableViewModel t = vm.table();
        EventRow pick = vm.getRows().get(700);
        t.selectedProperty().set(pick);
        assertEquals(700, t.indexOfSelected());
        vm.accept(CaptureViewModelTest.batch(60_000, 49_500));  // evicts 500
        vm.flush();
        assertSame(pick, vm.getRows().get(200));
        assertEquals(200, t.indexOfSelected());
        vm.accept(CaptureViewModelTest.batch(120_000, 1000));
        vm.flush();
        assertNull(t.selectedProperty().get(), "evicted");
        assertTrue(t.messageProperty().get().contains("left the window"));
    }

    @Test
    void timeModesTextAndCsv(@TempDir Path dir) throws Exception {
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        EventRow a = new EventRow(1_000_000_000_000L, 0, 1, "a,b", "sched:x", "say \"hi\"", java.util.Map.of());
        EventRow b = new EventRow(1_000_000_000_000L + 1_500_000_123L, 1, 2, "c", "sched:y", "plain", java.util.Map.of());
        vm.accept(List.of(a, b));
        vm.flush();
        EventTableViewModel t = vm.table();
        assertEquals(a.time(), t.timeText(a));
        t.timeModeProperty().set(EventTableViewModel.TimeMode.RELATIVE);
        assertEquals("0.000000000", t.timeText(a));
        assertEquals("1.500000123", t.timeText(b));
        assertEquals("0.000000000\t0\t1\ta,b\tsched:x\tsay \"hi\"\n1.500000123\t1\t2\tc\tsched:y\tplain\n", t.asText(List.of(a, b)));
        String csv = t.asCsv(List.of(a, b));
        assertEquals("time,ts_ns,cpu,pid,comm,event,line\r\n0.000000000,1000000000000,0,1,\"a,b\",sched:x,\"say \"\"hi\"\"\"\r\n"
                + "1.500000123,1001500000123,1,2,c,sched:y,plain\r\n", csv);
        Path out = dir.resolve("rows.csv");
        t.export(out, List.of(a, b));
        assertEquals(csv, Files.readString(out));
        assertTrue(t.messageProperty().get().startsWith("exported 2 rows"));
    }
}
