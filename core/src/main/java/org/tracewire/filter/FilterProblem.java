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

    /**
     * The text and a caret line under {@code position} (tabs kept, so the caret lines up).
     *
     * @param text     the filter text
     * @param position 0-based offset; clamped into the text
     */
    public static String pointer(String text, int position) {
        int p = Math.max(0, Math.min(position, text.length()));
        StringBuilder caret = new StringBuilder();
        for (int i = 0; i < p; i++) {
            caret.append(text.charAt(i) == '\t' ? '\t' : ' ');
        }
        return text.replace('\n', ' ') + "\n" + caret + "^";
    }
}
