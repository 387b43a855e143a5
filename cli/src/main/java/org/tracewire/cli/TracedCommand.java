package org.tracewire.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command of {@code capture [options] -- CMD ARGS}: started stopped (a shell that stops itself
 * with {@code SIGSTOP}, then {@code exec}s the command, so the pid stays the same), put into the
 * capture's task scope while stopped, and let go with {@code SIGCONT} once tracing is on, so its
 * first instruction is traced. It inherits the terminal; with the pcapng on standard output
 * ({@code -w -}) its standard output goes to standard error instead.
 */
final class TracedCommand {
    /** How long the shell may take to stop itself. */
    static final long STOP_TIMEOUT_MS = 10_000;

    private final List<String> argv;
    private final Process process;

    private TracedCommand(List<String> argv, Process process) {
        this.argv = argv;
        this.process = process;
    }

    /**
     * Starts the command stopped.
     *
     * @param argv          the command and its arguments (not empty)
     * @param stdoutIsTaken true when our standard output carries the capture ({@code -w -})
     * @param stdinIsTaken  true when our standard input is watched ({@code --stop-on-stdin-eof})
     * @return the stopped command
     * @throws IOException when the shell cannot start, or it exits or does not stop in time
     */
    static TracedCommand start(List<String> argv, boolean stdoutIsTaken, boolean stdinIsTaken)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "kill -STOP $$ && exec \"$@\"", "tracewire-cmd"));
        cmd.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(stdinIsTaken ? ProcessBuilder.Redirect.from(new File("/dev/null"))
                        : ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(stdoutIsTaken ? ProcessBuilder.Redirect.appendTo(new File("/dev/stderr"))
                        : ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MS);
        while (!isStopped(p.pid())) {
            if (!p.isAlive() || System.nanoTime() > until) {
                p.destroyForcibly();
                throw new IOException("could not start " + String.join(" ", argv) + " stopped (its shell "
                        + (p.isAlive() ? "did not stop" : "exited with status " + p.waitFor()) + ")");
            }
            Thread.sleep(2);
        }
        return new TracedCommand(List.copyOf(argv), p);
    }

    /** True when the process is in state {@code T} (stopped) in {@code /proc/PID/stat}. */
    static boolean isStopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'T';
        } catch (IOException e) {
            return false;
        }
    }

    /** The command's pid. */
    long pid() {
        return process.pid();
    }

    /** Lets the stopped command go on ({@code SIGCONT}). */
    void resume() {
        try {
            new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
        } catch (IOException e) {
            throw new IllegalStateException("cannot resume " + argv.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the command (one never resumed: the capture failed before tracing). */
    void kill() {
        process.destroyForcibly();
    }

    /** True once the command has exited. */
    boolean exited() {
        return !process.isAlive();
    }

    /** The command line, for messages. */
    String describe() {
        return String.join(" ", argv);
    }

    /** Its exit status, or -1 while it runs. */
    int status() {
        return process.isAlive() ? -1 : process.exitValue();
    }
}
