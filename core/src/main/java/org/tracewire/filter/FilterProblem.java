package org.tracewire.filter;

/**
 * One thing wrong with a filter for its event, from {@link FilterValidator}.
 *
 * @param position 0-based offset into the filter text (of the field name, the operator or the
 *                 value at fault), or -1 when the filter was built in code
 * @param message  e.g. {@code "no field 'prev_pidd' in sched:sched_switch"}
 */
public record FilterProblem(int position, String message) {

    /** {@code "position N: message"}, or the message alone without a position. */
    @Override
    public String toString() {
        return position >= 0 ? "position " + position + ": " + message : message;
    }

    /** Widest text {@link #pointer} shows; longer text is cut to a window around the position. */
    public static final int POINTER_WIDTH = 100;

    /**
     * The text and a caret line under {@code position} (tabs kept, so the caret lines up). Text
     * longer than {@value #POINTER_WIDTH} characters is cut to a window around the position, each
     * cut end marked {@code ...}; line breaks and other control characters show as spaces.
     *
     * @param text     the filter text
     * @param position 0-based offset; clamped into the text
     */
    public static String pointer(String text, int position) {
        int p = Math.max(0, Math.min(position, text.length()));
        int from = 0;
        int to = text.length();
        if (to > POINTER_WIDTH) {
            from = Math.max(0, Math.min(p - POINTER_WIDTH / 2, text.length() - POINTER_WIDTH));
            to = from + POINTER_WIDTH;
        }
        String head = from > 0 ? "..." : "";
        StringBuilder shown = new StringBuilder(head);
        StringBuilder caret = new StringBuilder(" ".repeat(head.length()));
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            shown.append(c == '\t' ? '\t' : Character.isISOControl(c) ? ' ' : c);
            if (i < p) {
                caret.append(c == '\t' ? '\t' : ' ');
            }
        }
        if (to < text.length()) {
            shown.append("...");
        }
        return shown + "\n" + caret + "^";
    }
}
