package org.tracewire.analysis;

/**
 * Hist trigger text that does not parse, a spec that does not fit an event, or {@code hist} file text
 * that is not the kernel's: carries the 0-based position in the text (or the 1-based line of a
 * {@code hist} file) and a message without it. {@link #getMessage()} is {@code "position N: message"}
 * (or {@code "line N: message"}).
 */
public class HistSpecException extends IllegalArgumentException {
    private final int position;
    private final String detail;

    /**
     * @param position 0-based offset into the trigger text, or -1 when the problem has no place in a text
     * @param detail   what is wrong
     */
    public HistSpecException(int position, String detail) {
        this(position, detail, position < 0 ? detail : "position " + position + ": " + detail);
    }

    private HistSpecException(int position, String detail, String message) {
        super(message);
        this.position = position;
        this.detail = detail;
    }

    /** A problem on a line of a {@code hist} file (1-based). */
    static HistSpecException atLine(int line, String detail) {
        return new HistSpecException(line, detail, "line " + line + ": " + detail);
    }

    /** 0-based offset of the problem in the trigger text (the line for a {@code hist} file), or -1. */
    public int position() {
        return position;
    }

    /** The message without the position. */
    public String detail() {
        return detail;
    }
}
