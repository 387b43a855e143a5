package org.tracewire.protocol;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Receives the backend's pushed messages. Called on the client's reader thread: implementations
 * must hand work to the UI thread themselves (and batch it).
 */
public interface BackendListener {
    /** A batch of streamed events. @param items the events, oldest first */
    default void onEvents(List<Messages.EventItem> items) {
    }

    /**
     * A batch of streamed tracewire frames (wire format v2, bare), context and events in stream order.
     *
     * @param frames the frames, oldest first (the buffers are the listener's)
     */
    default void onFrames(List<ByteBuffer> frames) {
    }

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
