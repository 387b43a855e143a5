package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Encoding real records with a warmed-up encoder allocates (close to) nothing per frame. */
class FrameEncoderAllocationTest {
    @Test
    void steadyStateEncodingAllocatesAlmostNothing() throws Exception {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx)
                || !mx.isThreadAllocatedMemorySupported()) {
            Assumptions.abort("this JVM does not count allocated bytes per thread");
            return;
        }
        FormatCatalog catalog = Tracefs.open(Prerequisites.snapshot()).formats();
        Map<Integer, EventFormat> byId = catalog.byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        List<RawRecord> records = new ArrayList<>();
        List<EventFormat> formats = new ArrayList<>();
        for (PageFixture.Page p : PageFixture.load()) {
            for (RawRecord r : SubBuffer.decode(PageFixture.buffer(p), layout, p.cpu()).records()) {
                records.add(r);
                formats.add(byId.get(r.eventId()));
            }
        }
        FrameEncoder enc = new FrameEncoder(MacAddress.TRACEWIRE, MacAddress.forHost("x"), 1);
        ByteBuffer out = ByteBuffer.allocateDirect(1 << 20);
        long frames = 0;
        long before = 0;
        long t0 = 0;
        for (int round = 0; round < 6; round++) {
            if (round == 3) {
                before = mx.getCurrentThreadAllocatedBytes();
                t0 = System.nanoTime();
                frames = 0;
            }
            for (int i = 0; i < records.size(); i++) {
                if (out.remaining() < 1514) {
                    out.clear();
                }
                RawRecord r = records.get(i);
                enc.encode(formats.get(i), ByteOrder.LITTLE_ENDIAN, r.payload(), r.cpu(), i, 0, r.timestamp(), 0, out);
                frames++;
            }
        }
        long ns = System.nanoTime() - t0;
        double perFrame = (double) (mx.getCurrentThreadAllocatedBytes() - before) / frames;
        System.out.printf("FrameEncoder: %.3f bytes allocated per frame over %d frames, %.0f ns per frame (not a benchmark)%n",
                perFrame, frames, (double) ns / frames);
        assertTrue(perFrame < 1.0, perFrame + " bytes allocated per frame");
    }
}
