package org.tracewire.wire;

/**
 * A buffer that is not a well-formed tracewire frame ({@code docs/wire-format.md}). Thrown by
 * {@link WireDecoder} only; carries the byte offset of the problem counted from the first byte of
 * the frame (the first byte of the Ethernet destination address).
 *
 * <p>Causes: the buffer ends inside the Ethernet header, the fixed header or a TLV ("truncated");
 * the EtherType is not 0x88B5; the magic is not {@code "TW"}; the version is 0; the header length
 * is below {@link WireHeader#SIZE} or runs past the buffer; the TLV area length runs past the
 * buffer; a TLV's head or value runs past the end of the TLV area.
 */
public class WireFormatException extends RuntimeException {
    private final int offset;

    /**
     * @param offset byte offset of the problem from the start of the frame
     * @param detail what is wrong
     */
    public WireFormatException(int offset, String detail) {
        super("frame offset " + offset + ": " + detail);
        this.offset = offset;
    }

    /** Byte offset of the problem from the start of the frame (0 = first byte of the destination MAC). */
    public int offset() {
        return offset;
    }
}
