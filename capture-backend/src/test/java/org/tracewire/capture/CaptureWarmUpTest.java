package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** The warm-up's synthetic sub-buffers, read back by the capture's own scanner. */
class CaptureWarmUpTest {
    @TempDir
    Path dir;

    /**
     * Records of a small event (type_len = length / 4) and of one longer than 112 bytes (type_len 0,
     * length in the array word), in both byte orders and two sub-buffer sizes: every record comes
     * back in turn with its event id, this process as {@code common_pid}, rising times and its
     * whole payload.
     */
    @ParameterizedTest
    @ValueSource(strings = {"LITTLE_ENDIAN/4096", "BIG_ENDIAN/4096", "LITTLE_ENDIAN/65536"})
    void pagesScanIntoTheRecordsWritten(String orderAndSize) throws Exception {
        ByteOrder order = orderAndSize.startsWith("BIG") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        int size = Integer.parseInt(orderAndSize.substring(orderAndSize.indexOf('/') + 1));
        Tracefs snapshot = Tracefs.open(Prerequisites.snapshot());
        EventFormat small = snapshot.format("sched", "sched_wakeup");
        EventFormat large = snapshot.format("sched", "sched_switch");
        EventFormat huge = snapshot.format("xfs", "xfs_dqadjust");
        List<EventFormat> formats = List.of(small, large, huge);
        assertTrue(huge.fixedSize() > 112,
                "one format needs the type_len 0 encoding");
        SubBufferLayout layout = new SubBufferLayout(new KernelLayout(order, 8), 0, 8, 8, 16, size,
                snapshot.headerEvent());
        Path file = Files.createTempFile(dir, "warm", ".raw");

        long written = CaptureWarmUp.writePages(file, layout, formats, 1000, 5_000_000L);

        assertTrue(written >= 1000, "at least the records asked for: " + written);
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(0, bytes.length % size, "whole sub-buffers");
        List<long[]> seen = new ArrayList<>();
        int pid = (int) ProcessHandle.current().pid();
        for (int p = 0; p < bytes.length; p += size) {
            ByteBuffer page = ByteBuffer.wrap(bytes, p, size).slice().order(order);
            SubBuffer.PageHeader header = SubBuffer.header(page, layout, 0);
            SubBuffer.scan(page, layout, header, 0, (ts, buf, offset, length, pageOffset) -> {
                int id = buf.getShort(offset) & 0xffff;
                seen.add(new long[] {ts, id, buf.getInt(offset + 4), length});
            });
        }
        assertEquals(written, seen.size(), "records scanned");
        long last = Long.MIN_VALUE;
        for (int i = 0; i < seen.size(); i++) {
            long[] r = seen.get(i);
            EventFormat f = formats.get(i % formats.size());
            assertEquals(f.id(), r[1], "event id of record " + i);
            assertEquals(pid, r[2], "common_pid of record " + i);
            assertEquals((f.fixedSize() + 3) & ~3, r[3], "payload length of record " + i);
            assertTrue(r[0] > last, "times rise: record " + i);
            last = r[0];
        }
        assertTrue(seen.get(0)[0] >= 5_000_000L, "times start at the given one");
    }
}
