package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One type-length-value element of a tracewire frame: type (u16 big-endian), length (u16
 * big-endian), then {@code length} value bytes, no padding. Type 0 is the event name
 * {@code system:event} in UTF-8; type i (1-based) is the i-th own field of the event in format
 * order, its value the field's raw bytes in the kernel's byte order ({@code docs/wire-format.md}).
 * Immutable: the value is copied in and out; equality compares the bytes.
 *
 * @param type  0..65535
 * @param value 0..65535 bytes
 */
public record Tlv(int type, byte[] value) {
    /** Bytes of the type and length words. */
    public static final int HEAD = 4;
    /** The event-name TLV's type. */
    public static final int EVENT_NAME = 0;

    public Tlv {
        if (type < 0 || type > 0xffff) {
            throw new IllegalArgumentException("TLV type " + type + " outside 0..65535");
        }
        if (value.length > 0xffff) {
            throw new IllegalArgumentException("TLV value of " + value.length + " bytes exceeds 65535");
        }
        value = value.clone();
    }

    /** The event-name TLV (type 0) for {@code system:event}. */
    public static Tlv eventName(String fullName) {
        return new Tlv(EVENT_NAME, fullName.getBytes(StandardCharsets.UTF_8));
    }

    /** A copy of the value bytes. */
    @Override
    public byte[] value() {
        return value.clone();
    }

    /** A read-only view of the value bytes (no copy). */
    public ByteBuffer valueBuffer() {
        return ByteBuffer.wrap(value).asReadOnlyBuffer();
    }

    /** Value length in bytes. */
    public int length() {
        return value.length;
    }

    /** Encoded size: {@link #HEAD} + value length. */
    public int size() {
        return HEAD + value.length;
    }

    /** The value decoded as UTF-8 (for the event-name TLV and string fields). */
    public String text() {
        return new String(value, StandardCharsets.UTF_8);
    }

    /** Writes type, length and value at the buffer's position, advancing it. */
    void writeTo(ByteBuffer out) {
        out.putShort((short) type).putShort((short) value.length).put(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tlv t && t.type == type && Arrays.equals(t.value, value);
    }

    @Override
    public int hashCode() {
        return 31 * type + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Tlv[type=").append(type).append(", value=");
        for (int i = 0; i < Math.min(value.length, 32); i++) {
            sb.append(String.format("%02x", value[i]));
        }
        if (value.length > 32) {
            sb.append("...(").append(value.length).append(" bytes)");
        }
        return sb.append(']').toString();
    }
}
