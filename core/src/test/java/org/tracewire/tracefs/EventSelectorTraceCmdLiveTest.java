package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.testing.Prerequisites;

/**
 * trace-cmd is the oracle of its own {@code -e} syntax: {@code trace-cmd start -B INSTANCE -e X}
 * enables events in an instance of ours, and its {@code set_event} must list exactly what
 * {@link EventSelector} resolves {@code X} to on the live tracefs (issue 36).
 */
@Tag("live")
class EventSelectorTraceCmdLiveTest {
    @ParameterizedTest
    @ValueSource(strings = {"sched", "sched:*", "sched:*wake*", "sched_switch", "*wake*", "sched*:sched_switch",
        "sys_enter_open*", "irq", "timer:hrtimer_?tart", "sched:sched_[sw]*"})
    void selectsWhatTraceCmdEnables(String selector) throws Exception {
        Tracefs live = Prerequisites.requireTracefs();
        Path traceCmd = Prerequisites.requireTool("trace-cmd");
        String instance = "tracewire-test-" + ProcessHandle.current().pid() + "-selector";
        Path dir = live.root().resolve("instances").resolve(instance);
        try {
            // -d: no function tracer (set_ftrace_filter is refused on this kernel); trace-cmd 3.1.6
            // may crash after enabling the events, so its exit status is not the oracle: set_event is.
            Process p = new ProcessBuilder(traceCmd.toString(), "start", "-d", "-B", instance, "-e", selector)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            List<String> enabled = Files.readAllLines(dir.resolve("set_event")).stream().sorted().toList();
            assertFalse(enabled.isEmpty(), "trace-cmd enabled nothing for " + selector);
            assertEquals(enabled, EventSelector.parse(selector).resolve(live).stream().sorted().toList(), selector);
        } finally {
            remove(dir);
        }
    }

    private static void remove(Path dir) throws IOException, InterruptedException {
        if (Files.isDirectory(dir)) {
            Files.writeString(dir.resolve("tracing_on"), "0");
            Files.writeString(dir.resolve("set_event"), "");
            Files.delete(dir);
        }
    }
}
