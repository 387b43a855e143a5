package org.tracewire.capture;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.wire.MacAddress;

/** Opens a capture's frame outputs and the {@link FrameSink} that feeds them. */
public final class FrameOutputs {
    private FrameOutputs() {
    }

    /**
     * Opens the outputs in order: TAP interface, existing interface, pcapng file. On failure the
     * ones already open are closed.
     *
     * @param catalog  the kernel's formats (identity hash, event plans)
     * @param session  the capture session (events, clock)
     * @param tapName  TAP interface to create, or null
     * @param sendOn   existing interface to send on, or null
     * @param pcapng   pcapng file, or null
     * @param maxFrame largest frame in bytes
     * @return the sink, or null when no output was asked for
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(FormatCatalog catalog, CaptureSession session, String tapName, String sendOn,
                                 Path pcapng, int maxFrame) throws IOException {
        return open(catalog, session, tapName, sendOn, pcapng, maxFrame, FileOpener.PLAIN);
    }

    /** Opens the file a pcapng output writes. */
    @FunctionalInterface
    public interface FileOpener {
        /** Creates the file, or truncates an existing one, as this process may ({@code ./tracewire capture}). */
        FileOpener PLAIN = f -> FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);

        /**
         * @param file the file
         * @return a channel on the empty file, positioned at 0
         * @throws IOException when it cannot (or may not) be opened, saying why
         */
        FileChannel open(Path file) throws IOException;
    }

    /**
     * {@link #open(FormatCatalog, CaptureSession, String, String, Path, int)} with the pcapng file
     * opened by {@code opener} (the backend opens it as the invoking user).
     *
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(FormatCatalog catalog, CaptureSession session, String tapName, String sendOn,
                                 Path pcapng, int maxFrame, FileOpener opener) throws IOException {
        List<FrameOutput> outputs = new ArrayList<>();
        try {
            if (tapName != null) {
                outputs.add(new TapOutput(tapName));
            }
            if (sendOn != null) {
                outputs.add(new InterfaceOutput(sendOn));
            }
            if (pcapng != null) {
                outputs.add(new PcapngOutput(pcapng, opener.open(pcapng), "ftrace events of " + hostName(), maxFrame));
            }
        } catch (IOException | RuntimeException e) {
            for (FrameOutput o : outputs) {
                try {
                    o.close();
                } catch (IOException ignored) {
                    // reporting the first failure
                }
            }
            throw e;
        }
        if (outputs.isEmpty()) {
            return null;
        }
        List<EventFormat> selected = new ArrayList<>();
        for (EventSelection e : session.events()) {
            EventFormat f = catalog.byName(e.fullName());
            if (f != null) {
                selected.add(f);
            }
        }
        return new FrameSink(MacAddress.TRACEWIRE, MacAddress.localHost(), FormatIdentity.of(catalog), maxFrame,
                selected, outputs, !session.clock().measured());
    }

    static String hostName() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
