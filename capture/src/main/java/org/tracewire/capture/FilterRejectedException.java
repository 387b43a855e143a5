package org.tracewire.capture;

import org.tracewire.filter.FilterProblem;

/**
 * The kernel refused an event filter. Carries the kernel's own message and the 0-based
 * position in the filter text where its parser stopped (from the instance's {@code error_log}),
 * or -1 when the kernel gave none.
 */
public class FilterRejectedException extends Exception {
    private final String event;
    private final String filter;
    private final String kernelMessage;
    private final int position;

    /**
     * @param event         {@code system:event}
     * @param filter        the filter text written
     * @param kernelMessage the kernel's message, e.g. {@code Field not found}
     * @param position      0-based position in {@code filter}, or -1
     */
    public FilterRejectedException(String event, String filter, String kernelMessage, int position) {
        super("kernel rejected the filter of " + event + ": " + kernelMessage
                + (position >= 0 ? " at position " + position : "") + "\n  " + shown(filter, position));
        this.event = event;
        this.filter = filter;
        this.kernelMessage = kernelMessage;
        this.position = position;
    }

    /** The filter with a caret line under the position (long filters cut around it). */
    private static String shown(String filter, int position) {
        String pointer = FilterProblem.pointer(filter, Math.max(position, 0));
        return position >= 0 ? pointer.replace("\n", "\n  ") : pointer.substring(0, pointer.indexOf('\n'));
    }

    /** {@code system:event}. */
    public String event() {
        return event;
    }

    /** The filter text. */
    public String filter() {
        return filter;
    }

    /** The kernel's message. */
    public String kernelMessage() {
        return kernelMessage;
    }

    /** 0-based position in the filter, or -1. */
    public int position() {
        return position;
    }
}
