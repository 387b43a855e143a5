package org.tracewire.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.BackendLauncher;
import org.tracewire.protocol.BackendListener;
import org.tracewire.protocol.Messages;

/**
 * The extcap's capture for a user who is not root, through the privileged backend ({@code
 * ./tracewire backend}, docs/backend-protocol.md) started as the desktop app starts it
 * ({@link BackendLauncher}: pkexec with a display, else {@code sudo -A}): the backend checks the
 * FIFO as that user's (their own FIFO, no symbolic link) and writes the pcapng into it with the
 * same engine as a capture as root. Ends when Wireshark stops the extcap (SIGTERM: the shutdown
 * hook stops the capture and quits the backend) or closes the FIFO (the backend's capture fails
 * with EPIPE, stops and says so), both exit 0; any other error the backend reports ends it with 1.
 */
final class ExtcapViaBackend {
    /** How long the extcap waits for the backend to answer its first command (pkexec may ask for a password first). */
    static final long BACKEND_START_WAIT_S = 300;
    /** Lines of the backend's stderr kept for a failure's message. */
    static final int BACKEND_LOG_LINES = 20;

    private final List<Messages.CaptureEvent> events;
    private final Path fifo;
    private final Integer bufferKb;
    private final String clock;
    private final BooleanSupplier terminating;

    /**
     * @param events      the events with their filters
     * @param fifo        Wireshark's FIFO the backend writes the pcapng into
     * @param bufferKb    per-CPU ring buffer in KiB, or null for the backend's default
     * @param clock       the trace clock, or null for the backend's default
     * @param terminating true once Wireshark asked the extcap to stop (a failure then is a normal end)
     */
    ExtcapViaBackend(List<Messages.CaptureEvent> events, Path fifo, Integer bufferKb, String clock,
                     BooleanSupplier terminating) {
        this.events = events;
        this.fifo = fifo;
        this.bufferKb = bufferKb;
        this.clock = clock;
        this.terminating = terminating;
    }

    /**
     * Starts the backend and captures until Wireshark or the backend ends it.
     *
     * @param err     where the extcap's messages go (Wireshark shows them on a non-zero exit)
     * @param command the backend's command line ({@link BackendLauncher#command})
     * @return the exit code: 0, or 1 a failure (said on {@code err})
     * @throws Exception when waiting is interrupted, or another unexpected failure
     */
    int run(PrintWriter err, List<String> command) throws Exception {
        // the backend's stderr is kept, not passed on: Wireshark shows anything an extcap writes there
        // as an error ("Error by extcap pipe"), even the backend's "acting for uid ..." line
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            err.println("tracewire: cannot start the backend (" + String.join(" ", command) + "): " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
        Deque<String> backendLog = keepTail(process.getErrorStream(), BACKEND_LOG_LINES);
        BackendClient client = new BackendClient(process.getInputStream(), process.getOutputStream(), process);
        CompletableFuture<String> ended = new CompletableFuture<>();
        client.addListener(new BackendListener() {
            @Override
            public void onError(String message) {
                ended.complete(message);
            }

            @Override
            public void onClosed(String reason) {
                ended.complete("the backend ended (" + reason + ")");
            }
        });
        Runnable stop = () -> {
            try {
                client.stopCapture().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // not running any more, or gone: closing still ends it
            }
            client.close(); // quit: the backend removes its instance and exits
        };
        Thread onSignal = new Thread(stop, "tracewire-extcap-stop");
        Runtime.getRuntime().addShutdownHook(onSignal); // SIGTERM/SIGINT: exitZeroOnSignals exits the JVM
        try {
            return capture(err, client, ended, backendLog);
        } finally {
            if (!terminating.getAsBoolean()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onSignal);
                    stop.run();
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs it
                }
            }
        }
    }

    /** Starts the capture on a connected backend and waits for its end: the exit code. */
    private int capture(PrintWriter err, BackendClient client, CompletableFuture<String> ended,
                        Deque<String> backendLog) throws InterruptedException, ExecutionException {
        try {
            awaitBackend(client);
            client.startCapture(new Messages.CaptureRequest(events, null, fifo.toAbsolutePath().toString(),
                    bufferKb, clock)).get();
        } catch (ExecutionException | TimeoutException e) {
            if (terminating.getAsBoolean()) {
                return 0;
            }
            Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            err.println("tracewire: " + (c instanceof TimeoutException ? "the backend did not answer" : c.getMessage()));
            printLog(err, backendLog);
            return Main.EXIT_FAILURE;
        }
        String why = ended.get();
        if (terminating.getAsBoolean() || ExtcapEnding.closedPipe(new IOException(why))) {
            return 0; // Wireshark stopped us, or closed its end: the backend stopped the capture
        }
        err.println("tracewire: " + why);
        printLog(err, backendLog);
        return Main.EXIT_FAILURE;
    }

    /** Reads {@code in} to its end on a daemon thread, keeping its last {@code lines} lines (thread-safe deque). */
    static Deque<String> keepTail(InputStream in, int lines) {
        Deque<String> tail = new ConcurrentLinkedDeque<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    tail.addLast(line);
                    while (tail.size() > lines) {
                        tail.pollFirst();
                    }
                }
            } catch (IOException ignored) {
                // the backend is gone
            }
        }, "tracewire-backend-stderr");
        t.setDaemon(true);
        t.start();
        return tail;
    }

    /** The backend's last stderr lines, indented under the extcap's message. */
    private static void printLog(PrintWriter err, Deque<String> log) {
        for (String line : log) {
            err.println("  " + line);
        }
    }

    /** Waits until the backend answers {@code hello}: after pkexec's or sudo's password prompt, if any. */
    private static void awaitBackend(BackendClient client) throws ExecutionException, TimeoutException,
            InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BACKEND_START_WAIT_S);
        while (true) {
            try {
                client.hello().get();
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TimeoutException) || !client.isOpen() || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }
}
