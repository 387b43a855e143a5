package org.tracewire.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.tracewire.capture.CapturedEvent;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.protocol.Messages;
import org.tracewire.record.EventRecord;

/** The stream renders off the emitter thread, only what it sends, and counts what it could not take. */
class StreamSinkTest {
    static final String FORMAT = """
            name: tick
            ID: 7
            format:
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            \tfield:u64 n;\toffset:8;\tsize:8;\tsigned:0;

            print fmt: "n=%llu", REC->n
            """;

    @Test
    void rendersOnFlushOnlyAndCountsWhatDidNotFit() {
        EventFormat f = FormatParser.parse("test", FORMAT, "inline");
        AtomicInteger rendered = new AtomicInteger();
        List<Messages.Events> sent = new ArrayList<>();
        StreamSink sink = new StreamSink(r -> {
            rendered.incrementAndGet();
            return "n=" + r.integer(r.format().field("n"));
        }, sent::add);
        int offered = StreamSink.MAX_QUEUED + 5;
        for (int i = 0; i < offered; i++) {
            if (!sink.wants()) {
                continue;
            }
            ByteBuffer p = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 7).putInt(4, 42)
                    .putLong(8, i);
            sink.accept(new CapturedEvent(new EventRecord(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 1, i, p),
                    1_700_000_000_000_000_000L + i, i, 0));
        }
        assertEquals(5, sink.dropped(), "not streamed: beyond the queue");
        assertEquals(0, rendered.get(), "nothing rendered on the emitter's side");
        sink.flush();
        assertEquals(StreamSink.MAX_ITEMS, rendered.get(), "rendered: what is sent");
        assertEquals(1, sent.size());
        Messages.EventItem first = sent.get(0).items().get(0);
        assertEquals(new Messages.EventItem(1, 1_700_000_000_000_000_000L, 42, "<...>", "test:tick", "n=0",
                Map.of("n", "0")), first);
        assertTrue(sink.wants(), "room again");
        assertEquals(5, sink.dropped());
        sink.close();
        assertEquals(2, sent.size());
        assertFalse(sent.get(1).items().isEmpty());
    }
}
