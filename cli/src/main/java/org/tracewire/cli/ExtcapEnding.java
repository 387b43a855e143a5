package org.tracewire.cli;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.posix.Posix;
import sun.misc.Signal;

/**
 * How an extcap capture ends so that Wireshark ends with it (Wireshark's {@code doc/extcap.adoc}):
 * Wireshark's stop (SIGTERM) and SIGINT exit with code 0, since Wireshark reports an extcap's
 * non-zero exit as an error ({@link #exitZeroOnSignals}, after which {@link #terminating()} is
 * true); a closed FIFO (EPIPE, {@link #closedPipe}) is a normal end; and a capture that fails
 * hands the FIFO an empty pcapng stream first ({@link #releaseFifo}), so that dumpcap, tshark and
 * Wireshark end too.
 */
final class ExtcapEnding {
    /** How long {@link #releaseFifo} waits for dumpcap to open the FIFO, ns. */
    static final long RELEASE_WAIT_NS = 5_000_000_000L;

    private volatile boolean terminating;

    /** True once a signal asked the extcap to stop (a failure then is a normal end). */
    boolean terminating() {
        return terminating;
    }

    /**
     * SIGTERM (Wireshark's stop) and SIGINT end the JVM with exit code 0 instead of 143/130. The
     * exit still runs the shutdown hooks, so CaptureRun stops tracing, finishes the pcapng and
     * removes the instance.
     */
    void exitZeroOnSignals() {
        for (String name : List.of("TERM", "INT")) {
            try {
                Signal.handle(new Signal(name), s -> {
                    terminating = true;
                    new Thread(() -> System.exit(0), "tracewire-extcap-" + name).start();
                });
            } catch (IllegalArgumentException e) {
                // the signal is reserved here: the default handling (hooks, non-zero exit) remains
            }
        }
    }

    /** True when the exception (or a cause) is EPIPE: the FIFO's reader went away. */
    static boolean closedPipe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("Broken pipe")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes an empty pcapng stream (a section header and one tracewire interface, no packets) into
     * Wireshark's FIFO once its reader has it open (waiting up to {@link #RELEASE_WAIT_NS}), then
     * closes it. Does nothing when the path is not a FIFO or no reader comes; never follows a link.
     * dumpcap waits for a header from a FIFO no writer ever opened, and tshark and Wireshark wait
     * for dumpcap, forever; with the header, dumpcap reads the end of the stream and both exit.
     */
    static void releaseFifo(Path fifo) {
        long deadline = System.nanoTime() + RELEASE_WAIT_NS;
        int fd = -1;
        while (fd < 0) {
            try {
                fd = Posix.open(fifo.toString(), Posix.O_WRONLY | Posix.O_NONBLOCK | Posix.O_NOFOLLOW | Posix.O_CLOEXEC);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != Posix.ENXIO || System.nanoTime() > deadline) {
                    return; // no FIFO, or nobody reading it
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException i) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        try {
            if (!Files.isRegularFile(Path.of("/proc/self/fd/" + fd))) {
                try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.WRITE);
                     PcapngWriter w = new PcapngWriter(ch, SectionInfo.host())) {
                    w.addInterface(new InterfaceInfo(ExtcapProtocol.DLT_TRACEWIRE, 0, ExtcapProtocol.INTERFACE,
                            "tracewire: the capture did not start"));
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the reader went away: it has its end of the stream either way
        } finally {
            Posix.close(fd);
        }
    }
}
