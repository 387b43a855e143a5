package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capture --ring} and {@code -b} on the command line: a malformed value or a ring without a
 * file name is a usage error (exit 2) that says what is wrong, before anything is traced or created.
 */
class CaptureRingOptionsTest {
    @Test
    void ringMistakesAreUsageErrors(@TempDir Path dir) throws IOException {
        String w = dir.resolve("r.pcapng").toString();
        expect("need -w FILE.pcapng", "capture", "-e", "sched:sched_switch", "--ring", "1,2");
        expect("need -w FILE.pcapng", "capture", "-e", "sched:sched_switch", "-w", "-", "-b", "filesize:100");
        expect("FILESIZE_MB,FILES", "capture", "-e", "sched:sched_switch", "-w", w, "--ring", "100");
        expect("-b packets:5: expected filesize:KB, files:N or duration:SECONDS", "capture", "-e", "sched:sched_switch",
                "-w", w, "-b", "packets:5");
        expect("trace-cmd's -b (buffer KiB per CPU) is --buffer-kb here", "capture", "-e", "sched:sched_switch", "-w", w,
                "-b", "4096");
        expect("the first file never ends", "capture", "-e", "sched:sched_switch", "-w", w, "-b", "files:3");
        expect("do not apply to --remote", "capture", "--remote", "root@host", "-e", "sched:sched_switch", "-w", w,
                "--ring", "1,2");
        try (var l = Files.list(dir)) {
            assertEquals(0, l.count(), "nothing created");
        }
    }

    private static void expect(String message, String... args) {
        FormatsCommandTest.Result r = FormatsCommandTest.run(args);
        assertEquals(Main.EXIT_USAGE, r.code(), String.join(" ", args) + ": " + r.out() + r.err());
        assertTrue(r.err().contains(message), String.join(" ", args) + ": " + r.err());
    }
}
