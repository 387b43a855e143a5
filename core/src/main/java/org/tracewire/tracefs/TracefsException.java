package org.tracewire.tracefs;

/**
 * A tracefs operation that failed: tracefs missing or not mounted, a file unreadable, a write the
 * kernel refused. The message names the path and the kernel's error where one was given.
 */
public class TracefsException extends RuntimeException {
    /** @param message what failed, naming the path */
    public TracefsException(String message) {
        super(message);
    }

    /** @param message what failed, naming the path; @param cause the I/O error */
    public TracefsException(String message, Throwable cause) {
        super(message, cause);
    }
}
