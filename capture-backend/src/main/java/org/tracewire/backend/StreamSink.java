package org.tracewire.backend;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Function;
import org.tracewire.capture.CapturedEvent;
import org.tracewire.capture.EventSink;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * Streams captured events to the desktop app as batched {@code events} messages
 * ({@code docs/backend-protocol.md}): at most {@value #MAX_ITEMS} items per message, one message
 * per {@link #flush()} (the backend flushes every 50 ms). When the app does not keep up, items
 * beyond {@value #MAX_QUEUED} waiting are dropped here and counted: the capture's other outputs
 * lose nothing.
 */
public final class StreamSink implements EventSink {
    /** Items per message at most. */
    public static final int MAX_ITEMS = 1000;
    /** Items waiting at most. */
    public static final int MAX_QUEUED = 20_000;

    private final ObjectMapper mapper;
    private final Function<EventRecord, String> text;
    private final Consumer<ObjectNode> send;
    private final ArrayDeque<ObjectNode> queue = new ArrayDeque<>();
    private volatile SavedCmdlines cmdlines = SavedCmdlines.empty();
    private long dropped;

    /**
     * @param mapper Jackson
     * @param text   renders a record's line body (the kernel's text after the context columns)
     * @param send   writes one message to the app
     */
    public StreamSink(ObjectMapper mapper, Function<EventRecord, String> text, Consumer<ObjectNode> send) {
        this.mapper = mapper;
        this.text = text;
        this.send = send;
    }

    /** Replaces the pid → comm cache used for the {@code comm} column. */
    public void setCmdlines(SavedCmdlines cmdlines) {
        this.cmdlines = cmdlines;
    }

    @Override
    public void accept(CapturedEvent e) {
        EventRecord r = e.record();
        ObjectNode item = mapper.createObjectNode();
        item.put("cpu", r.cpu());
        item.put("ts", e.wallNs());
        item.put("pid", r.pid());
        item.put("comm", cmdlines.comm(r.pid()));
        item.put("event", r.format().fullName());
        item.put("text", text.apply(r));
        ObjectNode fields = item.putObject("fields");
        for (Field f : r.format().fields()) {
            try {
                if (f.kind().isString()) {
                    fields.put(f.name(), r.string(f));
                } else if (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8) {
                    long v = r.integer(f);
                    fields.put(f.name(), f.signed() || f.size() < 8 || v >= 0 ? Long.toString(v) : Long.toUnsignedString(v));
                } else {
                    fields.put(f.name(), java.util.HexFormat.of().formatHex(r.bytes(f)));
                }
            } catch (RuntimeException ex) {
                fields.put(f.name(), "<" + ex.getMessage() + ">");
            }
        }
        synchronized (queue) {
            if (queue.size() >= MAX_QUEUED) {
                dropped++;
                return;
            }
            queue.add(item);
        }
    }

    /** Sends one {@code events} message with up to {@value #MAX_ITEMS} waiting items; nothing when none wait. */
    public void flush() {
        ArrayNode items = mapper.createArrayNode();
        synchronized (queue) {
            while (!queue.isEmpty() && items.size() < MAX_ITEMS) {
                items.add(queue.poll());
            }
        }
        if (!items.isEmpty()) {
            ObjectNode msg = mapper.createObjectNode();
            msg.put("type", "events");
            msg.set("items", items);
            send.accept(msg);
        }
    }

    /** Items dropped because the app did not keep up. */
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
