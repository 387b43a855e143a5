package org.tracewire.wire;

/**
 * The kind of a tracewire frame: bits 0–3 of header byte 1 ({@code docs/wire-format.md} §2.1).
 * {@link #EVENT} frames carry a record payload; the others carry a fragment of a context message
 * ({@link ContextMessage}).
 */
public enum FrameKind {
    /** One trace event: the record payload as the ring buffer holds it (§3). */
    EVENT(0),
    /** The capture, kernel and clock (§4.1). */
    CAPTURE(1),
    /** One event's format (§4.2). */
    FORMAT(2),
    /** Code addresses and printk strings seen in the events (§4.3). */
    SYMBOLS(3),
    /** Tasks: pid → tgid, comm (§4.4). */
    PROCESS(4),
    /** Events the kernel lost on the header's CPU (§4.5). */
    LOST(5);

    private final int code;

    /** The kinds by code (0..15; null: reserved), built once: {@code values()} copies its array at every call. */
    private static final FrameKind[] BY_CODE = new FrameKind[16];

    static {
        for (FrameKind k : values()) {
            BY_CODE[k.code] = k;
        }
    }

    FrameKind(int code) {
        this.code = code;
    }

    /** The 4-bit code in the header (0..15). */
    public int code() {
        return code;
    }

    /** The kind with this code, or null for the reserved codes 6..15 (receivers skip those frames). */
    public static FrameKind of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** True for the context kinds (everything but {@link #EVENT}). */
    public boolean isContext() {
        return this != EVENT;
    }
}
