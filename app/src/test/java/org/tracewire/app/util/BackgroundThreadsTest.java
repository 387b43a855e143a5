package org.tracewire.app.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.tracewire.posix.ThreadPriority;

/**
 * The app's background threads run at the background nice value, as the kernel reports it for the
 * thread ({@code /proc/thread-self/stat}, field 19: proc(5)), and threads they start inherit it.
 */
class BackgroundThreadsTest {
    /** The calling thread's nice value, from the kernel. */
    static int niceOfThisThread() throws Exception {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(after[16]); // field 19; fields 3.. follow the command name
    }

    @Test
    void backgroundThreadsRunNicerThanTheCaller() throws Exception {
        int caller = niceOfThisThread();
        assumeTrue(caller < ThreadPriority.BACKGROUND, "the tests already run at nice " + caller);
        ExecutorService e = BackgroundThreads.single("tracewire-test");
        try {
            int[] seen = new int[2];
            String[] name = new String[1];
            e.submit(() -> {
                seen[0] = niceOfThisThread();
                name[0] = Thread.currentThread().getName();
                Thread child = new Thread(() -> {
                    try {
                        seen[1] = niceOfThisThread();
                    } catch (Exception ex) {
                        seen[1] = Integer.MIN_VALUE;
                    }
                });
                child.start();
                child.join();
                return null;
            }).get(10, TimeUnit.SECONDS);
            assertEquals(ThreadPriority.BACKGROUND, seen[0], "the background thread's nice value");
            assertEquals(seen[0], seen[1], "a thread it starts inherits it");
            assertEquals("tracewire-test", name[0]);
            assertTrue(niceOfThisThread() == caller, "the caller keeps its own");
        } finally {
            e.shutdownNow();
        }
    }
}
