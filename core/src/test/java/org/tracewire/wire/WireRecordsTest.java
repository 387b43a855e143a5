package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;

/** Every real record of the page fixture survives record → frame → record with equal fields and text. */
class WireRecordsTest {
    @Test
    void realRecordsRoundTripThroughFrames() throws Exception {
        Map<Integer, EventFormat> byId = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, MacAddress.forHost("test"), 42L, 65535);
        KernelTextRenderer text = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), "mono"), kernel,
                PrintContext.empty());
        ByteBuffer out = ByteBuffer.allocate(65535);
        int n = 0;
        for (PageFixture.Page page : PageFixture.load()) {
            for (RawRecord r : SubBuffer.decode(PageFixture.buffer(page), layout, page.cpu()).records()) {
                EventFormat f = byId.get(r.eventId());
                EventRecord original = new EventRecord(f, kernel, r.cpu(), r.timestamp(), r.payload());
                out.clear();
                enc.encode(original, r.cpu(), n, 0, 1_000L + n, 0, out);
                out.flip();
                EventRecord back = WireRecords.toRecord(WireDecoder.decode(out), f, 8);
                assertEquals(original.pid(), back.pid());
                assertEquals(original.flags(), back.flags());
                assertEquals(original.preemptCount(), back.preemptCount());
                assertEquals(r.cpu(), back.cpu());
                for (Field field : f.fields()) {
                    String where = f.fullName() + "." + field.name();
                    if (field.kind().isString()) {
                        assertEquals(original.string(field), back.string(field), where);
                    } else if (field.kind().isDynamic()) {
                        assertArrayEquals(original.bytes(field), back.bytes(field), where);
                    } else if (!field.isFlexible()) {
                        assertArrayEquals(original.bytes(field), back.bytes(field), where);
                    }
                }
                assertEquals(text.body(original), text.body(back), f.fullName());
                n++;
            }
        }
        assertTrue(n > 10_000, "only " + n + " records");
    }
}
