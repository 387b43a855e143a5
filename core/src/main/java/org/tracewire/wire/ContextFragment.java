package org.tracewire.wire;

/**
 * One fragment of a context message, as a context frame's body holds it
 * ({@code docs/wire-format.md} §4): u32 message id, u16 fragment index, u16 fragment count,
 * u32 message length, then the fragment's bytes. Big-endian.
 *
 * @param messageId     unique per kind within a capture (0..2^32-1)
 * @param index         0-based fragment index (&lt; count)
 * @param count         fragments of the message (1..65535)
 * @param messageLength total message bytes
 * @param bytes         this fragment's bytes (not copied)
 */
public record ContextFragment(long messageId, int index, int count, long messageLength, byte[] bytes) {
    /** Bytes of the fragment head. */
    public static final int HEAD = 12;
}
