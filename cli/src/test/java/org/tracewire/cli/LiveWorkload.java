package org.tracewire.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.testing.TestInstances;

/**
 * A workload for live capture tests that the capture does not exclude: a capture excludes its own
 * process and, through {@code options/event-fork}, every process it forks once tracing is set up,
 * so a workload the test JVM starts during the capture would be invisible. This one is started
 * before the capture (a shell that waits for a line on its stdin) and released once the capture's
 * instance ({@code tracewire-<this pid>}) traces ({@link TestInstances#isTracing}).
 */
final class LiveWorkload implements AutoCloseable {
    private final Process process;
    private final Thread releaser;

    private LiveWorkload(Process process, Thread releaser) {
        this.process = process;
        this.releaser = releaser;
    }

    /**
     * @param tracefsRoot the live tracefs mount
     * @param delayS      seconds between tracing on and the workload's start
     * @param command     the workload
     */
    static LiveWorkload start(Path tracefsRoot, double delayS, List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "read go; sleep " + delayS + "; exec \"$0\" \"$@\""));
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Path instance = tracefsRoot.resolve("instances/tracewire-" + ProcessHandle.current().pid());
        Thread t = new Thread(() -> {
            try {
                long until = System.nanoTime() + 60_000_000_000L;
                while (System.nanoTime() < until) {
                    if (TestInstances.isTracing(instance)) {
                        break;
                    }
                    Thread.sleep(20);
                }
                p.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                p.getOutputStream().close();
            } catch (Exception ignored) {
                // the test's counts tell
            }
        });
        t.start();
        return new LiveWorkload(p, t);
    }

    /** True once the workload has exited (a capture may stop then: every event it made is in the buffer). */
    boolean ended() {
        return !process.isAlive();
    }

    /** Waits for the workload to end. */
    @Override
    public void close() throws InterruptedException {
        releaser.join();
        process.waitFor();
    }
}
