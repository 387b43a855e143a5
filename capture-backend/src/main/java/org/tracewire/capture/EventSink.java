package org.tracewire.capture;

import java.io.IOException;

/**
 * Where captured events go: a network interface, a pcapng file, the desktop app. Called from the
 * capture engine's single emitter thread, in time order.
 */
public interface EventSink extends AutoCloseable {
    /**
     * Takes one event.
     *
     * @throws IOException when the output fails; the capture stops and reports it
     */
    void accept(CapturedEvent event) throws IOException;

    /** Flushes and releases the output. */
    @Override
    void close() throws IOException;
}
