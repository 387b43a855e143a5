package org.tracewire.protocol;

/**
 * A line that is not a valid protocol message: not JSON, not an object, no string {@code type},
 * an unknown or missing field, a value of the wrong kind, or a line over the size limit. The
 * message says where, e.g. {@code 'events[0].event' must be a string}.
 */
public final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and where */
    public ProtocolException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and where
     * @param cause   the parser's exception
     */
    public ProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
