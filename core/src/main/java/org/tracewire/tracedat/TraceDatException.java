package org.tracewire.tracedat;

/**
 * A trace-cmd file ({@code trace.dat}) that does not follow {@code trace-cmd.dat.v6(5)} /
 * {@code trace-cmd.dat.v7(5)}, or that this reader does not support: a bad magic, an unknown
 * version, a size that runs past the end of the file or its section, a section that does not
 * decompress, a ring-buffer page that does not decode. The message starts with
 * {@code "trace.dat offset N: "}: N is the byte offset in the file of the structure that failed
 * (for data inside a compressed section, the offset of that section, with the position in its
 * decompressed bytes in the detail).
 */
public class TraceDatException extends RuntimeException {
    private final long offset;

    /**
     * @param offset byte offset in the file
     * @param detail what is wrong
     */
    public TraceDatException(long offset, String detail) {
        super("trace.dat offset " + offset + ": " + detail);
        this.offset = offset;
    }

    /**
     * @param offset byte offset in the file
     * @param detail what is wrong
     * @param cause  the underlying error
     */
    public TraceDatException(long offset, String detail, Throwable cause) {
        super("trace.dat offset " + offset + ": " + detail, cause);
        this.offset = offset;
    }

    /** Byte offset in the file where reading failed. */
    public long offset() {
        return offset;
    }
}
