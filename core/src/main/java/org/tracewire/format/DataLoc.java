package org.tracewire.format;

/**
 * The location word of a {@code __data_loc} / {@code __rel_loc} field: a 32-bit value in the
 * record (in the kernel's byte order) whose low 16 bits are the offset of the field's data and
 * whose high 16 bits are its length in bytes. For {@code __data_loc} the offset counts from the
 * start of the record's payload; for {@code __rel_loc} from the end of the location word itself
 * (the kernel's {@code include/trace/stages/stage5_get_offsets.h} and {@code
 * __get_rel_dynamic_array} in {@code include/trace/stages/stage3_trace_output.h}).
 *
 * <p>The one Java decoder of the word: records, frame encoders and tests use it.
 */
public final class DataLoc {
    /** Size of the location word in bytes. */
    public static final int WORD_SIZE = 4;

    private DataLoc() {
    }

    /**
     * @param word the location word
     * @return the data's length in bytes (0..65535)
     */
    public static int length(int word) {
        return word >>> 16;
    }

    /**
     * @param word        the location word
     * @param fieldOffset the offset of the location word in the payload, bytes
     * @param relative    true for {@code __rel_loc}
     * @return the data's offset from the start of the payload, bytes
     */
    public static int offset(int word, int fieldOffset, boolean relative) {
        int off = word & 0xffff;
        return relative ? off + fieldOffset + WORD_SIZE : off;
    }

    /**
     * The location word for data placed in a payload.
     *
     * @param dataOffset  where the data starts in the payload, bytes
     * @param length      its length in bytes
     * @param fieldOffset the offset of the location word in the payload, bytes
     * @param relative    true for {@code __rel_loc}
     * @return the word
     * @throws IllegalArgumentException when offset or length do not fit 16 bits
     */
    public static int word(int dataOffset, int length, int fieldOffset, boolean relative) {
        int off = relative ? dataOffset - (fieldOffset + WORD_SIZE) : dataOffset;
        if (off < 0 || off > 0xffff || length < 0 || length > 0xffff) {
            throw new IllegalArgumentException("__data_loc offset " + off + " or length " + length + " out of 0..65535");
        }
        return (length << 16) | off;
    }
}
