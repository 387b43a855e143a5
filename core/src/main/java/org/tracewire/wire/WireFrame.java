package org.tracewire.wire;

import java.nio.ByteBuffer;

/**
 * A decoded tracewire frame ({@link WireDecoder}): its header, its body and, in the Ethernet
 * encapsulation, the source address (the context scope, §4).
 *
 * @param source   the Ethernet source address, or null for a bare frame (pcapng link type 162)
 * @param header   the 16-byte header
 * @param body     for {@link FrameKind#EVENT}: the record payload (read-only, position 0, in the
 *                 kernel's byte order {@link WireHeader#byteOrder()}); otherwise null
 * @param fragment for context kinds: the fragment; otherwise null
 */
public record WireFrame(MacAddress source, WireHeader header, ByteBuffer body, ContextFragment fragment) {
    /** The frame's kind, or null for a reserved kind (then body and fragment are null). */
    public FrameKind kind() {
        return header.kind();
    }

    /** For an EVENT frame: the record's {@code common_type} (event id), from payload offset 0 in the kernel's byte order. */
    public int eventId() {
        return body.getShort(0) & 0xffff;
    }
}
