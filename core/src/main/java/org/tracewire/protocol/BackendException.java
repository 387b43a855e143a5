package org.tracewire.protocol;

/** The backend answered with an {@code error}, broke the protocol, or is not running. */
public class BackendException extends RuntimeException {
    /**
     * @param message what went wrong
     */
    public BackendException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause   the underlying failure
     */
    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
