package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code capture -e} takes trace-cmd's syntax (issue 36): a bare system, a bare event name and a
 * glob each become their events, every one of them traced; an unknown name is a usage error with
 * a did-you-mean.
 */
@Tag("live")
@Tag("concurrent")
class CaptureSelectorLiveTest {
    @Test
    void globsAndBareWordsSelectTheirEvents(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        Path file = dir.resolve("sel.pcapng");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // wakeups by a task (common_pid > 0): on a quiet machine the rest come from the idle task
        int rc;
        try (LiveWorkload load = LiveWorkload.start(top.root(), 0.1,
                List.of("sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.02; done"))) {
            rc = Main.run(new String[] {"capture", "-e", "sched_switch", "-e", "sched:*wake*", "-f", "common_pid > 0",
                "--no-iface", "-w", file.toString(), "--duration", "1"}, new PrintStream(out), new PrintStream(err));
        }
        String all = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, all);

        ByteArrayOutputStream report = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"report", file.toString()}, new PrintStream(report),
                new PrintStream(new ByteArrayOutputStream())));
        Set<String> seen = new TreeSet<>();
        Matcher m = Pattern.compile(" (sched_\\w+):").matcher(report.toString(StandardCharsets.UTF_8));
        while (m.find()) {
            seen.add("sched:" + m.group(1));
        }
        Set<String> allowed = new TreeSet<>(EventSelector.parse("sched:*wake*").resolve(top));
        allowed.add("sched:sched_switch");
        assertTrue(seen.contains("sched:sched_switch") && seen.contains("sched:sched_wakeup"), seen + "\n" + all);
        assertTrue(allowed.containsAll(seen), "only the selected events: " + seen + " of " + allowed);
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");
    }

    @Test
    void anUnknownEventIsAUsageErrorWithASuggestion(@TempDir Path dir) {
        Prerequisites.requireTracefs();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"capture", "-e", "sched:sched_swich", "--no-iface", "-w",
            dir.resolve("x.pcapng").toString(), "--duration", "1"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err));
        String msg = err.toString(StandardCharsets.UTF_8);
        assertEquals(Main.EXIT_USAGE, rc, msg);
        assertTrue(msg.contains("did you mean sched:sched_switch"), msg);
    }
}
