package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.protocol.Messages;
import org.tracewire.protocol.Protocol;
import org.tracewire.store.StoreCache;
import org.tracewire.tracefs.EventSelection;

/**
 * What the user chose to capture: the events with their filters and stacks, and the outputs (TAP
 * interface, pcapng file, per-CPU buffer size), turned into the backend's
 * {@link Messages.CaptureRequest} at Start.
 */
public final class CaptureChoice {
    private final ObservableList<EventSelection> events = FXCollections.observableArrayList();
    private final StringProperty iface = new SimpleStringProperty(Protocol.DEFAULT_IFACE);
    private final StringProperty pcapng = new SimpleStringProperty("");
    private final IntegerProperty bufferKb = new SimpleIntegerProperty(0);

    /**
     * Adds an event (or replaces its filter when it is already chosen).
     *
     * @param event  "system:event"
     * @param filter kernel filter, empty or null for none
     */
    public void addEvent(String event, String filter) {
        String f = filter == null ? "" : filter;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).fullName().equals(event)) {
                events.set(i, events.get(i).withFilter(f));
                return;
            }
        }
        events.add(EventSelection.parse(event, f));
    }

    /**
     * Sets the stack traces recorded with a chosen event ({@code capture --stack}, docs/stacks.md).
     *
     * @param event "system:event", one of {@link #getEvents()}; nothing happens for another
     * @param stack the stacks; a user stack is recorded for every event of the capture (the
     *              kernel's option is instance-wide)
     */
    public void setStack(String event, EventSelection.Stack stack) {
        for (int i = 0; i < events.size(); i++) {
            EventSelection e = events.get(i);
            if (e.fullName().equals(event)) {
                events.set(i, new EventSelection(e.system(), e.event(), e.filter(), stack));
            }
        }
    }

    /**
     * The pcapng a capture writes: the chosen file, else a new one in the user's cache
     * ({@link LiveCapture#newCacheFile}: older live captures beyond the cache's bound are removed).
     *
     * @param cache the user's store cache (its {@code live} folder)
     * @return the file, absolute
     * @throws IOException when the cache's folder cannot be made
     */
    Path output(StoreCache cache) throws IOException {
        String chosen = pcapng.get();
        return chosen == null || chosen.isBlank()
                ? LiveCapture.newCacheFile(cache.dir(), LiveCapture.liveCacheBytes(System.getenv()))
                : Path.of(chosen).toAbsolutePath();
    }

    /**
     * The backend's request for these events and outputs.
     *
     * @param out the pcapng the backend writes (absolute)
     * @return the request
     */
    Messages.CaptureRequest request(Path out) {
        List<Messages.CaptureEvent> evs = events.stream().map(Messages.CaptureEvent::of).toList();
        return new Messages.CaptureRequest(evs, iface.get(), out.toString(), bufferKb.get(), null);
    }

    /** The chosen events with their filters. */
    public ObservableList<EventSelection> getEvents() {
        return events;
    }

    /** TAP interface name, empty for none. */
    public StringProperty ifaceProperty() {
        return iface;
    }

    /** pcapng output path, empty for a new file in the user's cache. */
    public StringProperty pcapngProperty() {
        return pcapng;
    }

    /** Per-CPU buffer size in KB, 0 for the kernel's default. */
    public IntegerProperty bufferKbProperty() {
        return bufferKb;
    }
}
