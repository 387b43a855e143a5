package org.tracewire.capture;

import java.io.IOException;

/**
 * Where decoded records go (the desktop app's stream, tests); frames go to a {@link FrameSink}.
 * Called from the capture engine's single emitter thread, in time order: {@link #accept} must be
 * quick (no rendering, no I/O), as that thread also feeds the frame outputs.
 */
public interface EventSink extends AutoCloseable {
    /**
     * Takes one event.
     *
     * @throws IOException when the output fails; the capture stops and reports it
     */
    void accept(CapturedEvent event) throws IOException;

    /**
     * Asked on the emitter thread before each event: false when the sink would not take it (e.g. a
     * full queue), so the engine neither copies the payload nor builds the record for it; the sink
     * counts what it refused. Must be cheap. The default takes everything.
     */
    default boolean wants() {
        return true;
    }

    /** Flushes and releases the output. */
    @Override
    void close() throws IOException;
}
