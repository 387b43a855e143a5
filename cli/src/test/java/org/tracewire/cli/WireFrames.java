package org.tracewire.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.tracewire.pcapng.PcapngReader;
import org.tracewire.wire.ContextAssembler;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireDecoder;
import org.tracewire.wire.WireFrame;

/**
 * The packets of a pcapng of tracewire version-2 frames (link type 162), decoded in file order, with
 * each context message at the packet that completed it: what the capture tests check frame by frame.
 */
final class WireFrames {
    /**
     * One packet.
     *
     * @param packet  the packet (time, drop count, bytes)
     * @param frame   its tracewire frame
     * @param message the context message this packet completed, or null (event frames, fragments)
     */
    record Decoded(PcapngReader.Packet packet, WireFrame frame, ContextMessage message) {
        FrameKind kind() {
            return frame.kind();
        }

        boolean isEvent() {
            return frame.kind() == FrameKind.EVENT;
        }

        /** For an event frame: the record's {@code common_pid} (payload offset 4). */
        int pid() {
            return frame.body().getInt(4);
        }

        /** For a LOST message: its count. */
        long lost() {
            return message.first(ContextMessage.LOST_EVENTS).number();
        }
    }

    private WireFrames() {
    }

    static List<Decoded> read(Path pcapng) throws IOException {
        return read(new PcapngReader(Files.readAllBytes(pcapng)).packets());
    }

    static List<Decoded> read(List<PcapngReader.Packet> packets) {
        ContextAssembler assembler = new ContextAssembler();
        List<Decoded> out = new ArrayList<>();
        for (PcapngReader.Packet p : packets) {
            out.add(decode(assembler, p));
        }
        return out;
    }

    /**
     * Like {@link #read(List)} for a whole file, one packet at a time and keeping none: for captures
     * of millions of frames, whose decoded list would not fit a test's heap.
     *
     * @param pcapng  the file's bytes
     * @param decoded gets each packet, decoded, in file order
     * @param others  gets each block that is not a packet (SHB, IDB, ISB)
     */
    static void forEach(byte[] pcapng, Consumer<Decoded> decoded, Consumer<PcapngReader.Block> others) {
        ContextAssembler assembler = new ContextAssembler();
        PcapngReader.forEach(pcapng, p -> decoded.accept(decode(assembler, p)), others);
    }

    private static Decoded decode(ContextAssembler assembler, PcapngReader.Packet p) {
        WireFrame f = WireDecoder.decodeBare(p.frame());
        ContextMessage m = null;
        if (f.fragment() != null) {
            ContextMessage.Parsed parsed = assembler.add(0, f);
            m = parsed == null ? null : parsed.message();
        }
        return new Decoded(p, f, m);
    }
}
