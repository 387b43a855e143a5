package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/**
 * {@link UserSymbols} against the kernel: a {@code sleep} blocked in its system call, whose user
 * program counter the kernel reports in {@code /proc/PID/syscall}, must resolve to libc's
 * nanosleep function, in the file its maps name, with the file's build id; a gone process and an address in no mapping
 * resolve to nothing.
 */
class UserSymbolsTest {
    @Test
    @Tag("live")
    void aBlockedSleepsProgramCounterIsInLibcsNanosleep() throws Exception {
        Prerequisites.requireRoot();
        Process p = new ProcessBuilder("sleep", "30").start();
        try {
            Path syscall = Path.of("/proc", Long.toString(p.pid()), "syscall");
            String[] f = {};
            for (int i = 0; i < 100; i++) { // until it blocks in clock_nanosleep (230 on x86-64) or nanosleep
                f = Files.readString(syscall).strip().split(" ");
                if (f.length == 9 && !f[0].equals("running")) {
                    break;
                }
                Thread.sleep(20);
            }
            assertEquals(9, f.length, String.join(" ", f));
            long pc = Long.parseUnsignedLong(f[8].substring(2), 16);
            UserSymbols users = new UserSymbols(Path.of("/proc"));
            UserSymbols.Symbol s = users.lookup((int) p.pid(), pc);
            assertNotNull(s, "no symbol for the pc 0x" + Long.toHexString(pc));
            assertTrue(s.name().contains("nanosleep"), s.toString());
            assertTrue(s.file().contains("libc"), s.toString());
            assertTrue(Long.compareUnsigned(s.start(), pc) <= 0 && pc - s.start() < s.size(), s.toString());
            assertNotNull(s.buildId(), "Debian's libc has a build id");
            assertEquals(20, s.buildId().length, "a SHA-1 build id (ld --build-id)");
            assertEquals(s, users.lookup((int) p.pid(), pc), "the same again, from the caches");
            assertNull(users.lookup((int) p.pid(), 0x1000), "an address in no mapping");
        } finally {
            p.destroy();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        assertNull(new UserSymbols(Path.of("/proc")).lookup((int) p.pid(), 0x7f0000001000L), "a gone process");
    }
}
