package org.tracewire.backend;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.tracewire.capture.CapturedEvent;
import org.tracewire.capture.EventSink;
import org.tracewire.protocol.Messages;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordValues;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * Streams captured events to the desktop app as batched {@code events} messages
 * ({@code docs/backend-protocol.md}): at most {@value #MAX_ITEMS} items per message, one message
 * per {@link #flush()} (the backend flushes every 50 ms).
 *
 * <p>The capture engine's emitter thread, which also feeds the TAP interface and the pcapng file,
 * only asks {@link #wants()} (is there room among the {@value #MAX_QUEUED} waiting?) and queues the
 * record; when there is no room the engine does not even copy the payload and the event is counted
 * in {@link #dropped()} ("not streamed"; the capture's other outputs lose nothing). Rendering (the
 * kernel's text, the field values) happens in {@link #flush()}, on the flushing thread, and only for
 * the events that are sent.
 */
public final class StreamSink implements EventSink {
    /** Items per message at most. */
    public static final int MAX_ITEMS = 1000;
    /** Items waiting at most. */
    public static final int MAX_QUEUED = 20_000;

    private final Function<EventRecord, String> text;
    private final Consumer<Messages.Events> send;
    private final ArrayDeque<CapturedEvent> queue = new ArrayDeque<>();
    private final Object renderLock = new Object();
    private volatile SavedCmdlines cmdlines = SavedCmdlines.empty();
    private long dropped;

    /**
     * @param text renders a record's line body (the kernel's text after the context columns); called
     *             on the flushing thread only, one call at a time
     * @param send writes one message to the app
     */
    public StreamSink(Function<EventRecord, String> text, Consumer<Messages.Events> send) {
        this.text = text;
        this.send = send;
    }

    /** Replaces the pid → comm cache used for the {@code comm} column. */
    public void setCmdlines(SavedCmdlines cmdlines) {
        this.cmdlines = cmdlines;
    }

    @Override
    public boolean wants() {
        synchronized (queue) {
            if (queue.size() >= MAX_QUEUED) {
                dropped++;
                return false;
            }
            return true;
        }
    }

    @Override
    public void accept(CapturedEvent e) {
        synchronized (queue) {
            queue.add(e);
        }
    }

    /** Renders and sends one {@code events} message with up to {@value #MAX_ITEMS} waiting items; nothing when none wait. */
    public void flush() {
        synchronized (renderLock) {
            List<CapturedEvent> batch = new ArrayList<>();
            synchronized (queue) {
                while (!queue.isEmpty() && batch.size() < MAX_ITEMS) {
                    batch.add(queue.poll());
                }
            }
            if (batch.isEmpty()) {
                return;
            }
            List<Messages.EventItem> items = new ArrayList<>(batch.size());
            for (CapturedEvent e : batch) {
                items.add(item(e));
            }
            send.accept(new Messages.Events(items));
        }
    }

    private Messages.EventItem item(CapturedEvent e) {
        EventRecord r = e.record();
        Map<String, Object> fields = RecordValues.strings(r);
        String line;
        try {
            line = text.apply(r);
        } catch (RuntimeException ex) {
            line = "<" + ex.getMessage() + ">";
        }
        return new Messages.EventItem(r.cpu(), e.wallNs(), r.pid(), cmdlines.comm(r.pid()), r.format().fullName(),
                line, fields);
    }

    /** Events not streamed because the app did not keep up (the queue was full). */
    public long dropped() {
        synchronized (queue) {
            return dropped;
        }
    }

    @Override
    public void close() {
        flush();
    }
}
