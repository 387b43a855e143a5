package org.tracewire.pcapng;

import java.io.IOException;

/**
 * A pcapng file that is malformed or cut short at a block: says where (file offset and the
 * 1-based block number) and whether the file simply ends inside that block ({@link #truncated()},
 * e.g. a capture killed while writing). Every packet before that block was returned by
 * {@link PcapngPacketReader#next()}; the reader cannot go past it.
 */
public final class PcapngFormatException extends IOException {
    private final long offset;
    private final long block;
    private final boolean truncated;

    /**
     * @param offset    file offset of the block's first byte
     * @param block     the block's 1-based number in the file
     * @param truncated true when the file ends inside the block (nothing after it is malformed)
     * @param detail    what is wrong, without the position
     */
    public PcapngFormatException(long offset, long block, boolean truncated, String detail) {
        super("pcapng offset " + offset + " (block " + block + "): " + detail);
        this.offset = offset;
        this.block = block;
        this.truncated = truncated;
    }

    /** File offset of the block's first byte. */
    public long offset() {
        return offset;
    }

    /** The block's 1-based number in the file. */
    public long block() {
        return block;
    }

    /** True when the file ends inside this block: everything before it was complete. */
    public boolean truncated() {
        return truncated;
    }
}
