package org.tracewire.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code backend --help} prints its usage and exits; it never starts a server waiting on stdin. */
class BackendMainHelpTest {
    private static Process start(String arg) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // stdin stays an open pipe: a server would wait on it forever
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), BackendMain.class.getName(), arg)
                .start();
    }

    @Test
    void helpPrintsUsageAndExits() throws Exception {
        Process p = start("--help");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "backend --help still runs after 30 s");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("Usage: tracewire backend") && out.contains("backend-protocol.md"), out);
    }

    @Test
    void anArgumentIsAUsageError() throws Exception {
        Process p = start("--bogus");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue());
        assertTrue(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).contains("Usage:"));
    }
}
