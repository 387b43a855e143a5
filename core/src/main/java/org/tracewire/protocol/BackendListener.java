package org.tracewire.protocol;

/**
 * Receives the backend's pushed messages. Called on the client's reader thread: implementations
 * must hand work to the UI thread themselves (and batch it).
 */
public interface BackendListener {
    /** Counters (pushed every second during a capture). @param stats the counters */
    default void onStats(Messages.Stats stats) {
    }

    /** An error not tied to a command. @param message the backend's message */
    default void onError(String message) {
    }

    /** The backend's output ended (it exited or was killed). @param reason a short description */
    default void onClosed(String reason) {
    }
}
