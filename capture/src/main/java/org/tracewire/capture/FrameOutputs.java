package org.tracewire.capture;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import com.sun.nio.file.ExtendedOpenOption;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.posix.InvokingUser;
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
        return open(session, tapName, sendOn, pcapng, maxFrame, FileOpener.INVOKING_USER);
    }

    /** Opens the file a pcapng output writes. */
    @FunctionalInterface
    public interface FileOpener {
        /** Creates the file, or truncates an existing one, as this process may. */
        FileOpener PLAIN = (f, extra) -> {
            OpenOption[] o = Arrays.copyOf(extra, extra.length + 3);
            o[extra.length] = StandardOpenOption.CREATE;
            o[extra.length + 1] = StandardOpenOption.WRITE;
            o[extra.length + 2] = StandardOpenOption.TRUNCATE_EXISTING;
            return FileChannel.open(f, o);
        };

        /**
         * The output of a command ({@code ./tracewire capture -w}, the extcap): as this process, unless
         * it is root acting for another user (sudo, pkexec): then as that user
         * ({@link InvokingUser#openOutput}), except Wireshark's own FIFO when Wireshark runs as root
         * through sudo (root's FIFO named {@code wireshark_extcap_*} in the system's temporary folder,
         * which only root can rename or remove: its sticky bit).
         */
        FileOpener INVOKING_USER = (f, extra) -> rootWiresharkFifo(f) ? PLAIN.open(f, extra)
                : InvokingUser.openOutput(f, "pcapng", extra);

        /**
         * @param file  the file
         * @param extra further options of the channel: {@link ExtendedOpenOption#DIRECT} for a file
         *              written with {@code O_DIRECT}
         * @return a channel on the empty file, positioned at 0
         * @throws IOException when it cannot (or may not) be opened, saying why (also when the file
         *                     system refuses an extra option)
         */
        FileChannel open(Path file, OpenOption... extra) throws IOException;
    }

    /** Root's FIFO {@code /tmp/wireshark_extcap_*} (checked without following a link). */
    static boolean rootWiresharkFifo(Path f) {
        try {
            Path abs = f.toAbsolutePath();
            var a = Files.readAttributes(abs, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            return abs.getParent() != null && abs.getParent().equals(Path.of("/tmp"))
                    && abs.getFileName().toString().startsWith("wireshark_extcap_")
                    && (Integer) a.get("uid") == 0 && ((Integer) a.get("mode") & 0170000) == 0010000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * Whether a regular pcapng file is written with {@code O_DIRECT} when its file system allows it
     * (system property {@code tracewire.pcapng.direct}, default true; false: through the page cache).
     */
    static boolean directWanted() {
        return !"false".equals(System.getProperty("tracewire.pcapng.direct"));
    }

    /**
     * The writer of a regular pcapng file: {@code O_DIRECT} when wanted and the file system takes it
     * (ext4, xfs, btrfs, tmpfs of Linux 6.6 and later), else through the page cache.
     *
     * @throws IOException when the file cannot be opened at all
     */
    static AsyncFileChannel fileChannel(Path pcapng, FileOpener opener) throws IOException {
        if (directWanted()) {
            FileChannel direct = null;
            try {
                direct = opener.open(pcapng, ExtendedOpenOption.DIRECT);
                long block = Files.getFileStore(pcapng).getBlockSize();
                if (block > 0 && block <= AsyncFileChannel.BUFFER_BYTES) {
                    return AsyncFileChannel.direct(direct, (int) block);
                }
            } catch (IOException | IllegalArgumentException | UnsupportedOperationException e) {
                // the file system refuses O_DIRECT (or has an odd block size): the page cache it is
            }
            if (direct != null) {
                direct.close();
            }
        }
        return new AsyncFileChannel(opener.open(pcapng), pcapng.toString());
    }

    /**
     * {@link #open(CaptureSession, String, String, Path, int)} with the pcapng file opened by
     * {@code opener} (the backend opens it as the invoking user).
     *
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(CaptureSession session, String tapName, String sendOn, Path pcapng, int maxFrame,
                                 FileOpener opener) throws IOException {
        return open(session, tapName, sendOn, pcapng, null, maxFrame, opener);
    }

    /**
     * {@link #open(CaptureSession, String, String, Path, int, FileOpener)} with the pcapng written as
     * a ring of files named after {@code pcapng} ({@link RingOutput}) when {@code ring} is given.
     *
     * @param ring when to switch files and how many to keep, or null for one file
     * @throws IOException when an output cannot be opened
     */
    public static FrameSink open(CaptureSession session, String tapName, String sendOn, Path pcapng,
                                 RingOutput.Spec ring, int maxFrame, FileOpener opener) throws IOException {
        String clock = clockName(session);
        SectionInfo section = pcapng == null ? null : SectionInfo.host();
        InterfaceInfo iface = pcapng == null ? null : identity(section, clock, session.clock(), FrameEncoder.MAX_FRAME);
        List<FrameOutput> outputs = outputs(tapName, sendOn, pcapng, ring, section, iface, MacAddress.localHost(),
                maxFrame, opener);
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
        return outputs(tapName, sendOn, pcapng, null, section, iface, source, maxFrame, opener);
    }

    /**
     * {@link #outputs(String, String, Path, SectionInfo, InterfaceInfo, MacAddress, int, FileOpener)}
     * with the pcapng written as a ring of files ({@link RingOutput}, named after {@code pcapng}, a
     * regular file's name) when {@code ring} is given.
     *
     * @param ring when to switch files and how many to keep, or null for one file
     * @throws IOException when an output cannot be opened, or {@code pcapng} names a stream for a ring
     */
    public static List<FrameOutput> outputs(String tapName, String sendOn, Path pcapng, RingOutput.Spec ring,
                                            SectionInfo section, InterfaceInfo iface, MacAddress source, int maxFrame,
                                            FileOpener opener) throws IOException {
        List<FrameOutput> outputs = new ArrayList<>();
        try {
            if (tapName != null) {
                outputs.add(new TapOutput(tapName, source, maxFrame));
            }
            if (sendOn != null) {
                outputs.add(new InterfaceOutput(sendOn, source, maxFrame));
            }
            if (pcapng != null && ring != null) {
                if (isStdout(pcapng) || PcapngOutput.isLive(pcapng)) {
                    throw new IOException("a ring of files needs a file name, not " + pcapng);
                }
                outputs.add(new RingOutput(ring, pcapng, section, iface, opener, RingOutput.Remover.INVOKING_USER,
                        Clock.systemDefaultZone()));
            } else if (pcapng != null) {
                if (isStdout(pcapng)) {
                    outputs.add(new PcapngOutput("stdout", new FileOutputStream(FileDescriptor.out).getChannel(), true,
                            section, iface));
                } else if (PcapngOutput.isLive(pcapng)) {
                    outputs.add(new PcapngOutput(pcapng.toString(), opener.open(pcapng), true, section, iface));
                } else {
                    // a regular file: written by a thread of its own, with O_DIRECT where it can be
                    outputs.add(new PcapngOutput(pcapng.toString(), fileChannel(pcapng, opener), false, section,
                            iface));
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
