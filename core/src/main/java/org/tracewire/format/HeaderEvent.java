package org.tracewire.format;

/**
 * The parsed {@code events/header_event}: how a ring-buffer record header is packed
 * (kernel: {@code ring_buffer_print_entry_header()}). A record starts with a 32-bit word:
 * {@code type_len} in the low {@link #typeLenBits()} bits, {@code time_delta} in the rest; then
 * {@code array[0]} (32 bits) where needed.
 *
 * @param typeLenBits     width of {@code type_len} (5)
 * @param timeDeltaBits   width of {@code time_delta} (27)
 * @param paddingType     {@code type_len} of padding records (29)
 * @param timeExtendType  {@code type_len} of time-extend records (30)
 * @param timeStampType   {@code type_len} of absolute time-stamp records (31)
 * @param maxDataType     largest {@code type_len} that encodes a data length in 4-byte words (28)
 */
public record HeaderEvent(int typeLenBits, int timeDeltaBits, int paddingType, int timeExtendType,
                          int timeStampType, int maxDataType) {

    /**
     * The text of {@code events/header_event} for the {@link #standard()} layout, as the kernel
     * prints it ({@code ring_buffer_print_entry_header()}): what a writer of trace.dat files states
     * when its source did not carry the file.
     */
    public static final String STANDARD_TEXT = """
            # compressed entry header
            \ttype_len    :    5 bits
            \ttime_delta  :   27 bits
            \tarray       :   32 bits

            \tpadding     : type == 29
            \ttime_extend : type == 30
            \ttime_stamp : type == 31
            \tdata max type_len  == 28
            """;

    /** The layout every kernel since 2.6.3x has used. */
    public static HeaderEvent standard() {
        return new HeaderEvent(5, 27, 29, 30, 31, 28);
    }
}
