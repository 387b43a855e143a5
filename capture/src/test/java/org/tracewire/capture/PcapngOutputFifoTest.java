package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;

/**
 * A pcapng output on a FIFO (Wireshark's extcap pipe) is live: the header blocks arrive at once,
 * frames within {@link PcapngOutput#LIVE_FLUSH_NS} of being written or of the emitter going idle,
 * without the writer closing. A regular file is not live, but an idle capture flushes it (a reader of
 * the growing file sees a slow capture).
 */
class PcapngOutputFifoTest {
    /** Reads a FIFO into a growing buffer on its own thread. */
    static final class Reader extends Thread {
        final Path fifo;
        final ByteArrayOutputStream got = new ByteArrayOutputStream();

        Reader(Path fifo) {
            this.fifo = fifo;
            setDaemon(true);
        }

        @Override
        public void run() {
            try (InputStream in = Files.newInputStream(fifo)) {
                byte[] b = new byte[65536];
                for (int n; (n = in.read(b)) > 0; ) {
                    synchronized (got) {
                        got.write(b, 0, n);
                    }
                }
            } catch (Exception ignored) {
                // the test checks what arrived
            }
        }

        int size() {
            synchronized (got) {
                return got.size();
            }
        }

        /** Waits until at least n bytes arrived; returns the time it took, ms (or -1 on timeout). */
        long awaitSize(int n, long timeoutMs) throws InterruptedException {
            long t0 = System.nanoTime();
            while (size() < n) {
                if (System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(timeoutMs)) {
                    return -1;
                }
                Thread.sleep(5);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
    }

    @Test
    void framesReachAFifoReaderWithoutClosing(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("pipe");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Reader reader = new Reader(fifo);
        reader.start();
        PcapngOutput out = new PcapngOutput(fifo, "test", 1514);
        try {
            assertTrue(out.live());
            assertTrue(out.describe().startsWith("pipe "));
            long headerMs = reader.awaitSize(1, 2000);
            assertTrue(headerMs >= 0, "SHB + IDB flushed at open");
            int header = reader.size();
            ByteBuffer frame = ByteBuffer.allocateDirect(100).order(ByteOrder.BIG_ENDIAN);
            out.write(frame, 1_700_000_000_000_000_000L, 0);
            // the emitter calls idle() at least every 50 ms while it has nothing to emit
            long t0 = System.nanoTime();
            while (reader.size() == header && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2)) {
                out.idle();
                Thread.sleep(50);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(header + 32 + 100, reader.size(), "one EPB arrived");
            assertTrue(ms <= 500, "arrived within the flush interval plus an idle period (100 + 50 ms; 500 allowed on a noisy machine): " + ms + " ms");
            // under a steady stream, write() itself flushes
            int before = reader.size();
            long t1 = System.nanoTime();
            while (reader.size() == before && System.nanoTime() - t1 < TimeUnit.SECONDS.toNanos(2)) {
                out.write(frame, 1_700_000_000_000_000_001L, 0);
                Thread.sleep(1);
            }
            assertTrue(reader.size() > before, "write() flushes a live output");
        } finally {
            out.close();
        }
        reader.join(2000);
        assertFalse(reader.isAlive(), "EOF after close");
    }

    @Test
    void aRegularFileIsNotLiveButAnIdleCaptureFlushesIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("x.pcapng");
        Files.writeString(file, "old");
        PcapngOutput out = new PcapngOutput(file, "test", 1514);
        assertFalse(out.live());
        out.write(ByteBuffer.allocateDirect(60), 1, 0);
        out.idle();
        assertEquals(0, Files.size(file), "held back while written: flushed when the buffer fills, at close, "
                + "or idle after " + PcapngOutput.FILE_FLUSH_NS + " ns");
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(PcapngOutput.FILE_FLUSH_NS) + 50);
        out.idle();
        long idle = Files.size(file);
        assertTrue(idle > 60, "an idle capture's frames reach the file (a reader of the growing file sees them): "
                + idle + " bytes");
        out.close();
        assertTrue(Files.size(file) > idle, "the statistics block at close");
    }

    /** The file the capture writes ({@link FrameOutputs}: its own thread, O_DIRECT where it can). */
    @Test
    void theCapturesFileReachesAReaderWhileIdle(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("capture.pcapng");
        PcapngOutput out = (PcapngOutput) FrameOutputs.outputs(null, null, file,
                SectionInfo.host(),
                InterfaceInfo.tracewire("tracewire", "test", 1514), null, 1514,
                FrameOutputs.FileOpener.PLAIN).get(0);
        try {
            ByteBuffer frame = ByteBuffer.allocateDirect(100);
            for (int i = 0; i < 200; i++) { // 26 KB: more than a file-system block
                out.write(frame.clear(), 1 + i, 0);
            }
            long t0 = System.nanoTime();
            while (Files.size(file) < 8192 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5)) {
                out.idle(); // as the emitter does while nothing comes
                Thread.sleep(50);
            }
            assertTrue(Files.size(file) >= 8192, "a slow capture's frames are in the file before it ends: "
                    + Files.size(file) + " bytes of " + (200 * 132) + " written");
        } finally {
            out.close();
        }
    }
}
