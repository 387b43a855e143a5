package org.tracewire.ringbuffer;

/**
 * A ring-buffer sub-buffer whose bytes do not follow the kernel's layout: a commit larger than
 * the page, a record header or length that runs past the data, an unknown record type. Names the
 * CPU and the byte offset in the sub-buffer where decoding stopped.
 */
public class CorruptPageException extends RuntimeException {
    private final int cpu;
    private final int offset;

    /**
     * @param cpu    the CPU whose buffer the page came from (-1 when unknown)
     * @param offset byte offset from the start of the sub-buffer
     * @param detail what is wrong
     */
    public CorruptPageException(int cpu, int offset, String detail) {
        super("cpu " + cpu + ", sub-buffer offset " + offset + ": " + detail);
        this.cpu = cpu;
        this.offset = offset;
    }

    /** The CPU, or -1. */
    public int cpu() {
        return cpu;
    }

    /** Byte offset in the sub-buffer. */
    public int offset() {
        return offset;
    }
}
