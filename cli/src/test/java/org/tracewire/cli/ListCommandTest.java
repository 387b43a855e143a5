package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** {@code list}: names only, in trace-cmd's selector syntax, on the snapshot of this kernel. */
class ListCommandTest {
    private record Result(int rc, List<String> out, String err) {
    }

    private static Result list(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 3];
        all[0] = "list";
        all[1] = "--tracefs";
        all[2] = Prerequisites.snapshot().toString();
        System.arraycopy(args, 0, all, 3, args.length);
        int rc = Main.run(all, new PrintStream(out), new PrintStream(err));
        return new Result(rc, out.toString(StandardCharsets.UTF_8).lines().toList(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void listsEveryEventOrTheSelectedOnes() {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        assertEquals(snap.allEvents(), list().out());
        Result wake = list("sched:*wake*", "sched_switch");
        assertEquals(0, wake.rc(), wake.err());
        assertTrue(wake.out().contains("sched:sched_wakeup") && wake.out().contains("sched:sched_switch"), wake.out()
                .toString());
        assertTrue(wake.out().stream().allMatch(e -> e.startsWith("sched:")), wake.out().toString());
        assertEquals(snap.systems(), list("--systems").out());
        assertEquals(List.of("sched"), list("--systems", "sched_switch").out());
    }

    @Test
    void anUnknownNameIsAUsageErrorWithASuggestion() {
        Result r = list("sched:sched_swich");
        assertEquals(Main.EXIT_USAGE, r.rc());
        assertTrue(r.err().contains("did you mean sched:sched_switch"), r.err());
    }
}
