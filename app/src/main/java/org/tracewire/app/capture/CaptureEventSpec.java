package org.tracewire.app.capture;

/**
 * An event chosen for capture with its kernel filter.
 *
 * @param event  "system:event"
 * @param filter the kernel filter, empty for none
 */
public record CaptureEventSpec(String event, String filter) {
    /** Null filters become empty. */
    public CaptureEventSpec {
        filter = filter == null ? "" : filter;
    }
}
