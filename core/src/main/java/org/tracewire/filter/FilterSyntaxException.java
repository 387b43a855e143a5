package org.tracewire.filter;

/**
 * Filter text that does not parse, or a filter that does not fit its event: carries the 0-based
 * position in the text (where a caret belongs) and a message without the position.
 * {@link #getMessage()} is {@code "position N: message"}.
 */
public class FilterSyntaxException extends RuntimeException {
    private final int position;
    private final String detail;

    /**
     * @param position 0-based offset into the filter text (0 when unknown)
     * @param detail   what is wrong, e.g. {@code "missing matching quote"}
     */
    public FilterSyntaxException(int position, String detail) {
        super("position " + position + ": " + detail);
        this.position = Math.max(0, position);
        this.detail = detail;
    }

    /** 0-based offset of the problem in the filter text. */
    public int position() {
        return position;
    }

    /** The message without the position. */
    public String detail() {
        return detail;
    }

    /**
     * Two lines for a terminal: the text, then a caret under the position.
     *
     * @param text the filter text the position refers to
     */
    public String pointer(String text) {
        return FilterProblem.pointer(text, position);
    }
}
