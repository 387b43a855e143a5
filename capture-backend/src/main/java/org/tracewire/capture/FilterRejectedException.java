package org.tracewire.capture;

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
                + (position >= 0 ? " at position " + position : "") + "\n  " + filter
                + (position >= 0 ? "\n  " + " ".repeat(position) + "^" : ""));
        this.event = event;
        this.filter = filter;
        this.kernelMessage = kernelMessage;
        this.position = position;
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
