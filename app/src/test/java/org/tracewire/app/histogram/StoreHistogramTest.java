package org.tracewire.app.histogram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.analysis.HistAggregator;
import org.tracewire.analysis.HistEntry;
import org.tracewire.analysis.HistLabels;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistTable;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.StoreFixture;
import org.tracewire.app.capture.TestRows;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;

/**
 * The histogram view model over the store of a real capture (issue 34: "the histogram of the
 * fixture equals an independent computation over all of it"; issue 35: keys by stack, flame
 * graph): each table equals core's {@link HistAggregator} fed every record of the event read
 * from the file; the stacktrace key and the flame graph equal the stacks read from the file's
 * stack records (their kernel text, {@code " => func"} lines) tied to the event each follows.
 */
class StoreHistogramTest {
    @TempDir
    static Path dir;
    private static StoreFixture fixture;
    private static List<RecordInput.Event> events;
    /** Per event frame: its kernel stack as report prints it, innermost first. */
    private static final Map<Long, List<String>> STACKS = new HashMap<>();

    @BeforeAll
    static void open() throws Exception {
        fixture = StoreFixture.open(dir);
        events = fixture.events();
        // the kernel writes a stack record right after its event, on the same CPU
        Map<Integer, Long> lastOnCpu = new HashMap<>();
        for (RecordInput.Event e : events) {
            String name = e.record().format().fullName();
            if (name.equals("ftrace:kernel_stack")) {
                List<String> frames = new ArrayList<>();
                for (String line : e.renderer().body(e.record()).split("\n")) {
                    if (line.startsWith(" => ")) {
                        frames.add(line.substring(4));
                    }
                }
                Long owner = lastOnCpu.get(e.record().cpu());
                if (owner != null) {
                    // the first stack after an event is its own (a second one, of an event this one interrupted, is not)
                    STACKS.putIfAbsent(owner, frames);
                }
            } else if (!name.equals("ftrace:user_stack")) {
                lastOnCpu.put(e.record().cpu(), e.frame());
            }
        }
        assertTrue(STACKS.size() > 1000, "stacks in the fixture: " + STACKS.size());
    }

    @AfterAll
    static void close() {
        fixture.close();
    }

    private static HistogramViewModel viewModel() {
        CaptureViewModel capture = new CaptureViewModel(new DirectTaskExecutor(), () -> null);
        HistogramViewModel vm = new HistogramViewModel(new DirectTaskExecutor(), TestRows.records());
        vm.setQueries(Runnable::run);
        vm.connect(capture);
        capture.storeTableProperty().set(fixture.table());
        return vm;
    }

    private static List<RecordInput.Event> of(String event) {
        return events.stream().filter(e -> e.record().format().fullName().equals(event)).toList();
    }

    @Test
    void everyTableEqualsTheAggregatorOverEveryRecord() {
        HistogramViewModel vm = viewModel();
        assertTrue(vm.overStoreProperty().get());
        assertTrue(vm.getEvents().contains("sched:sched_switch"), vm.getEvents().toString());
        String[][] cases = {
            {"sched:sched_switch", "hist:keys=common_pid.execname:sort=hitcount.descending:size=131072"},
            {"sched:sched_switch", "hist:keys=next_comm,prev_state:vals=prev_prio,next_prio:size=131072"},
            {"sched:sched_switch", "hist:keys=next_pid:size=131072 if prev_pid != 0 && next_prio < 120"},
            {"sched:sched_switch", "hist:keys=common_cpu,next_prio.buckets=10:size=131072"},
            {"raw_syscalls:sys_exit", "hist:keys=ret.log2:size=131072"},
            {"raw_syscalls:sys_exit", "hist:keys=id,ret:vals=ret:size=131072"},
            {"raw_syscalls:sys_enter", "hist:keys=id.syscall,common_pid:size=131072"},
            {"syscalls:sys_enter_openat", "hist:keys=flags.hex,dfd:vals=mode:size=131072"},
            {"sched:sched_wakeup", "hist:keys=target_cpu,prio:size=131072 if common_pid != 0"},
        };
        for (String[] c : cases) {
            vm.eventProperty().set(c[0]);
            assertTrue(vm.applyTriggerText(c[1]), c[1] + ": " + vm.errorProperty().get());
            HistTable got = vm.tableProperty().get();
            assertNotNull(got, c[1]);
            List<EventRecord> recs = of(c[0]).stream().map(RecordInput.Event::record).toList();
            assertFalse(recs.isEmpty(), c[0]);
            HistTable want = HistAggregator.aggregate(HistSpec.parse(c[1]), recs.get(0).format(), recs, HistLabels.NONE);
            assertEquals(0, want.dropped(), c[1]);
            assertTrue(got.sameCounts(want), c[1] + "\n store: " + got.entries() + "\n records: " + want.entries());
            assertTrue(vm.statusProperty().get().startsWith(String.format("%,d hits of %,d %s events", want.hits(), recs.size(), c[0])),
                    vm.statusProperty().get());
        }
        // execname labels: the store's task names
        vm.eventProperty().set("sched:sched_switch");
        vm.applyTriggerText("hist:keys=common_pid.execname:sort=hitcount.descending");
        assertTrue(vm.getEntries().stream().anyMatch(e -> e.keys().get(0).label() != null), "named tasks");
    }

    @Test
    void entriesBeyondTheSizeAreCountedAndSaid() {
        HistogramViewModel vm = viewModel();
        vm.eventProperty().set("raw_syscalls:sys_exit");
        assertTrue(vm.applyTriggerText("hist:keys=id,ret:sort=hitcount.descending:size=128"), vm.errorProperty().get());
        HistTable got = vm.tableProperty().get();
        List<EventRecord> recs = of("raw_syscalls:sys_exit").stream().map(RecordInput.Event::record).toList();
        HistTable all = HistAggregator.aggregate(HistSpec.parse("hist:keys=id,ret:size=131072"), recs.get(0).format(), recs,
                HistLabels.NONE);
        assertTrue(all.entryCount() > 128, "more keys than the size: " + all.entryCount());
        assertEquals(128, got.entries().size());
        assertEquals(all.entryCount(), got.entryCount(), "every key counted");
        assertEquals(recs.size(), got.hits(), "every event counted, none dropped");
        assertEquals(0, got.dropped());
        // the entries shown are the most hit (ties in key order), each with its full count
        Map<List<?>, Long> counts = new HashMap<>();
        all.entries().forEach(e -> counts.put(e.keys(), e.hitcount()));
        long least = got.entries().get(got.entries().size() - 1).hitcount();
        for (HistEntry e : got.entries()) {
            assertEquals(counts.get(e.keys()), e.hitcount());
        }
        assertEquals(128, all.entries().stream().filter(e -> e.hitcount() > least).count()
                + got.entries().stream().filter(e -> e.hitcount() == least).count());
        assertTrue(vm.statusProperty().get().contains(String.format("%,d entries, the first 128 shown", all.entryCount())),
                vm.statusProperty().get());
    }

    @Test
    void theStacktraceKeyAndTheFlameGraphAreTheFilesStacks() {
        HistogramViewModel vm = viewModel();
        assertTrue(vm.getEvents().contains("syscalls:sys_enter_openat"));
        for (String ev : List.of("syscalls:sys_enter_openat", "sched:sched_wakeup")) {
            vm.eventProperty().set(ev);
            assertTrue(vm.builder().getFields().contains("stacktrace"), vm.builder().getFields().toString());
            assertTrue(vm.applyTriggerText("hist:keys=stacktrace:sort=hitcount.descending:size=131072"), vm.errorProperty().get());
            Map<String, Long> want = new TreeMap<>();
            Map<String, Long> folded = new TreeMap<>();
            long withStack = 0;
            for (RecordInput.Event e : of(ev)) {
                List<String> st = STACKS.get(e.frame());
                want.merge(st == null ? StoreHistogram.NO_STACK : String.join(StoreHistogram.ARROW, st), 1L, Long::sum);
                if (st != null) {
                    List<String> rootFirst = new ArrayList<>(st);
                    java.util.Collections.reverse(rootFirst);
                    folded.merge(String.join(";", rootFirst), 1L, Long::sum);
                    withStack++;
                }
            }
            assertTrue(withStack > 100, ev + " events with a stack: " + withStack);
            Map<String, Long> got = new TreeMap<>();
            for (HistEntry e : vm.getEntries()) {
                got.put(e.keys().get(0).string(), e.hitcount());
            }
            assertEquals(want, got, "stacktrace keys of " + ev);
            FlameGraph.Node flame = vm.flameProperty().get();
            assertNotNull(flame, vm.flameStatusProperty().get());
            assertEquals(withStack, flame.count(), "the flame graph's root: every event with a stack");
            assertEquals(FlameGraph.of(folded), flame, "the flame graph of " + ev);
            assertTrue(vm.flameStatusProperty().get().contains(String.format("%,d with a stack", withStack)), vm.flameStatusProperty().get());
        }
        // the filter's rows only
        vm.eventProperty().set("syscalls:sys_enter_openat");
        vm.applyTriggerText("hist:keys=stacktrace:size=131072 if common_pid == " + of("syscalls:sys_enter_openat").get(0).record().pid());
        int pid = of("syscalls:sys_enter_openat").get(0).record().pid();
        long matched = of("syscalls:sys_enter_openat").stream().filter(e -> e.record().pid() == pid && STACKS.containsKey(e.frame())).count();
        assertEquals(matched, vm.flameProperty().get().count(), "the flame graph of the filter's rows");
    }
}
