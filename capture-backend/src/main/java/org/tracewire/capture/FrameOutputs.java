package org.tracewire.capture;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;

/** Opens a capture's frame outputs and the {@link FrameSink} that feeds them. */
public final class FrameOutputs {
    private FrameOutputs() {
    }

    /**
     * Opens the outputs in order: TAP interface, existing interface, pcapng file, and the
     * {@link FrameSink} that feeds them with the capture's context ({@link CaptureContext#live}). On
     * failure the ones already open are closed.
     *
     * @param session  the capture session (events, clock, instance)
     * @param tapName  TAP interface to create, or null
     * @param sendOn   existing interface to send on, or null
     * @param pcapng   pcapng file, {@link #STDOUT} for standard output (live), or null
     * @param maxFrame largest Ethernet frame on the interfaces, bytes (a pcapng holds frames up to
     *                 {@value FrameEncoder#MAX_FRAME} bytes)
     * @return the sink, or null when no output was asked for
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(CaptureSession session, String tapName, String sendOn, Path pcapng, int maxFrame)
            throws IOException {
        return open(session, tapName, sendOn, pcapng, maxFrame, FileOpener.PLAIN);
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
     * {@link #open(CaptureSession, String, String, Path, int)} with the pcapng file opened by
     * {@code opener} (the backend opens it as the invoking user).
     *
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(CaptureSession session, String tapName, String sendOn, Path pcapng, int maxFrame,
                                 FileOpener opener) throws IOException {
        String clock = clockName(session);
        SectionInfo section = pcapng == null ? null : SectionInfo.host();
        InterfaceInfo iface = pcapng == null ? null : identity(section, clock, session.clock(), FrameEncoder.MAX_FRAME);
        List<FrameOutput> outputs = outputs(tapName, sendOn, pcapng, section, iface, MacAddress.localHost(), maxFrame,
                opener);
        if (outputs.isEmpty()) {
            return null;
        }
        try {
            return new FrameSink(outputs, CaptureContext.live(session.instance().parent(), session, clock));
        } catch (RuntimeException e) {
            for (FrameOutput o : outputs) {
                try {
                    o.close();
                } catch (IOException ignored) {
                    // reporting the first failure
                }
            }
            throw e;
        }
    }

    /**
     * Opens frame outputs in order: TAP interface, existing interface, pcapng file (or standard
     * output). On failure the ones already open are closed. Used for local captures and for the
     * local side of a remote one (whose pcapng keeps the remote host's section and interface).
     *
     * @param tapName  TAP interface to create, or null
     * @param sendOn   existing interface to send on, or null
     * @param pcapng   pcapng file, {@link #STDOUT} for standard output (live), or null
     * @param section  the pcapng's section options (used when {@code pcapng} is given)
     * @param iface    the pcapng's interface (used when {@code pcapng} is given)
     * @param source   the Ethernet source of frames on the interfaces (the traced host)
     * @param maxFrame largest Ethernet frame on the interfaces, bytes
     * @param opener   opens the pcapng file
     * @return the outputs, possibly empty
     * @throws IOException when an output cannot be opened
     */
    public static List<FrameOutput> outputs(String tapName, String sendOn, Path pcapng, SectionInfo section,
                                            InterfaceInfo iface, MacAddress source, int maxFrame, FileOpener opener)
            throws IOException {
        List<FrameOutput> outputs = new ArrayList<>();
        try {
            if (tapName != null) {
                outputs.add(new TapOutput(tapName, source, maxFrame));
            }
            if (sendOn != null) {
                outputs.add(new InterfaceOutput(sendOn, source, maxFrame));
            }
            if (pcapng != null) {
                if (isStdout(pcapng)) {
                    outputs.add(new PcapngOutput("stdout", new FileOutputStream(FileDescriptor.out).getChannel(), true,
                            section, iface));
                } else if (PcapngOutput.isLive(pcapng)) {
                    outputs.add(new PcapngOutput(pcapng.toString(), opener.open(pcapng), true, section, iface));
                } else {
                    // a regular file: the kernel's copy into the page cache happens on a writer thread
                    outputs.add(new PcapngOutput(pcapng.toString(), new AsyncFileChannel(opener.open(pcapng),
                            pcapng.toString()), false, section, iface));
                }
            }
            return outputs;
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
    }

    /** The path that means "pcapng to standard output" ({@code -w -}). */
    public static final Path STDOUT = Path.of("-");

    /** True when {@code pcapng} is {@link #STDOUT}: the blocks go to file descriptor 1, live. */
    public static boolean isStdout(Path pcapng) {
        return STDOUT.equals(pcapng);
    }

    /**
     * The source MAC an interface's comment names ({@code "source MAC 02:…"}, as {@link #identity}
     * writes it), or null.
     */
    public static MacAddress sourceOf(InterfaceInfo iface) {
        String c = iface == null ? null : iface.comment();
        int at = c == null ? -1 : c.indexOf("source MAC ");
        if (at < 0) {
            return null;
        }
        String rest = c.substring(at + "source MAC ".length());
        int end = rest.indexOf(';');
        try {
            return MacAddress.parse((end < 0 ? rest : rest.substring(0, end)).strip());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The interface a capture's pcapng declares, naming where its frames come from so the file
     * says so after a copy or a merge: {@code if_name} {@code tracewire}, {@code if_description}
     * {@code "ftrace events of HOST"}, {@code if_os} and {@code if_hardware} from the section, and
     * as comment the host, the frames' source MAC, and the clock mapping, e.g.
     * {@code "host vm; source MAC 02:..; trace clock mono; wall ns = trace ns - 1234 (error <= 3000 ns)"}
     * (or {@code "…; trace clock counter, not converted (raw)"}).
     *
     * @param section  this host's section options
     * @param clock    the trace clock's name, or null when unknown
     * @param sync     the measured offset, {@link ClockSync#none()} for raw clocks
     * @param maxFrame the snap length (bare frame bytes)
     */
    public static InterfaceInfo identity(SectionInfo section, String clock, ClockSync sync, int maxFrame) {
        String host = SectionInfo.hostName();
        StringBuilder c = new StringBuilder("host ").append(host).append("; source MAC ").append(MacAddress.localHost());
        c.append("; trace clock ").append(clock == null ? "?" : clock);
        if (sync.measured()) {
            c.append("; wall ns = trace ns - ").append(sync.offsetNs()).append(" (error <= ").append(sync.errorNs())
                    .append(" ns)");
        } else {
            c.append(", not converted (raw)");
        }
        return InterfaceInfo.tracewire("tracewire", "ftrace events of " + host, maxFrame).withHost(section)
                .withComment(c.toString());
    }

    /** The instance's selected trace clock ({@code [mono]} in {@code trace_clock}), or null. */
    static String clockName(CaptureSession session) {
        try {
            String t = session.instance().read("trace_clock");
            int a = t.indexOf('[');
            int b = t.indexOf(']', a + 1);
            return a >= 0 && b > a ? t.substring(a + 1, b) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
