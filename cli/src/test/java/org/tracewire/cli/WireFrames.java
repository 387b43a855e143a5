package org.tracewire.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
            WireFrame f = WireDecoder.decodeBare(p.frame());
            ContextMessage m = null;
            if (f.fragment() != null) {
                ContextMessage.Parsed parsed = assembler.add(0, f);
                m = parsed == null ? null : parsed.message();
            }
            out.add(new Decoded(p, f, m));
        }
        return out;
    }
}
