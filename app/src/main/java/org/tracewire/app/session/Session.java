package org.tracewire.app.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import org.tracewire.protocol.Messages;

/**
 * A saved capture setup: the chosen events with their filters and the outputs.
 *
 * @param version  format version (1)
 * @param events   events with kernel filters and stack traces, in the backend protocol's JSON form
 *                 of an {@code EventSelection} ({@code event}, {@code filter}, {@code stack})
 * @param iface    TAP interface name, empty for none
 * @param pcapng   capture file, empty for none
 * @param bufferKb per-CPU buffer size, 0 for the default
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Session(int version, List<Messages.CaptureEvent> events, String iface, String pcapng, int bufferKb) {
    /** The current format version. */
    public static final int VERSION = 1;

    /** Null lists and strings become empty. */
    public Session {
        events = events == null ? List.of() : List.copyOf(events);
        iface = iface == null ? "" : iface;
        pcapng = pcapng == null ? "" : pcapng;
    }
}
