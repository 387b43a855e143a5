package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pcapng writer thread's channel: every byte written, in order, whatever the block sizes
 * (smaller and larger than its buffers, more than all its buffers at once); a failing file is
 * reported by a later write or by close, never lost.
 */
class AsyncFileChannelTest {
    @Test
    void everyByteArrivesInOrder(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("f");
        Random rnd = new Random(7);
        byte[] all = new byte[9 * AsyncFileChannel.BUFFER_BYTES + 12345];
        rnd.nextBytes(all);
        try (AsyncFileChannel ch = new AsyncFileChannel(FileChannel.open(f, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), f.toString())) {
            int at = 0;
            while (at < all.length) {
                int n = Math.min(all.length - at, rnd.nextInt(3 * AsyncFileChannel.BUFFER_BYTES / 2) + 1);
                ByteBuffer b = ByteBuffer.allocateDirect(n);
                b.put(all, at, n).flip();
                ch.write(b);
                assertTrue(!b.hasRemaining());
                at += n;
            }
        }
        assertArrayEquals(all, Files.readAllBytes(f));
    }

    /**
     * With O_DIRECT (the temporary folder's file system permitting): whole aligned blocks to the
     * disk, the last one padded and the file cut back to exactly the bytes written, for totals on,
     * just below and just above a block boundary.
     */
    @Test
    void aDirectFileHoldsEveryByteAndNoPadding(@TempDir Path dir) throws IOException {
        int block = (int) Files.getFileStore(dir).getBlockSize();
        Random rnd = new Random(11);
        for (int total : new int[] {0, 1, block - 1, block, block + 1, 3 * AsyncFileChannel.BUFFER_BYTES + 7,
                2 * AsyncFileChannel.BUFFER_BYTES}) {
            Path f = dir.resolve("d" + total);
            byte[] all = new byte[total];
            rnd.nextBytes(all);
            AsyncFileChannel ch = FrameOutputs.fileChannel(f, FrameOutputs.FileOpener.PLAIN);
            Assumptions.assumeTrue(ch.isDirect(), "the file system of " + dir + " refuses O_DIRECT");
            try (ch) {
                int at = 0;
                while (at < all.length) {
                    int n = Math.min(all.length - at, rnd.nextInt(70_000) + 1);
                    ch.write(ByteBuffer.wrap(all, at, n));
                    at += n;
                }
            }
            assertArrayEquals(all, Files.readAllBytes(f), "total " + total);
        }
    }

    /**
     * Filling the lent buffers ({@code BufferExchange}, what the pcapng writer does) instead of
     * copying in: every byte in order, with O_DIRECT (the tail after the last block boundary carried
     * into the next buffer) and without, for fills smaller than a block, around it, and up to a whole
     * buffer; handing back a buffer it did not lend is refused.
     */
    @Test
    void lentBuffersFilledInPlaceArriveInOrder(@TempDir Path dir) throws IOException {
        Random rnd = new Random(13);
        for (boolean direct : new boolean[] {true, false}) {
            String old = System.getProperty("tracewire.pcapng.direct");
            System.setProperty("tracewire.pcapng.direct", Boolean.toString(direct));
            Path f = dir.resolve("x" + direct);
            byte[] all = new byte[5 * AsyncFileChannel.BUFFER_BYTES + 4321];
            rnd.nextBytes(all);
            try (AsyncFileChannel ch = FrameOutputs.fileChannel(f, FrameOutputs.FileOpener.PLAIN)) {
                ByteBuffer b = ch.lend();
                assertThrows(IllegalArgumentException.class, () -> ch.exchange(ByteBuffer.allocateDirect(16)));
                int at = 0;
                while (at < all.length) {
                    int n = Math.min(all.length - at, rnd.nextInt(5) == 0 ? rnd.nextInt(100) : rnd.nextInt(70_000) + 1);
                    if (b.remaining() < n) {
                        b = ch.exchange(b);
                        assertTrue(b.remaining() >= AsyncFileChannel.BUFFER_BYTES - 65536, "room after an exchange");
                        n = Math.min(n, b.remaining());
                    }
                    b.put(all, at, n);
                    at += n;
                    if (rnd.nextInt(50) == 0) {
                        b = ch.exchange(b); // an early hand-over, as a flush does
                    }
                }
            } finally {
                if (old == null) {
                    System.clearProperty("tracewire.pcapng.direct");
                } else {
                    System.setProperty("tracewire.pcapng.direct", old);
                }
            }
            assertArrayEquals(all, Files.readAllBytes(f), "direct " + direct);
        }
    }

    @Test
    void withoutDirectTheFileGoesThroughThePageCache(@TempDir Path dir) throws IOException {
        String old = System.getProperty("tracewire.pcapng.direct");
        System.setProperty("tracewire.pcapng.direct", "false");
        try (AsyncFileChannel ch = FrameOutputs.fileChannel(dir.resolve("p"), FrameOutputs.FileOpener.PLAIN)) {
            assertFalse(ch.isDirect());
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        } finally {
            if (old == null) {
                System.clearProperty("tracewire.pcapng.direct");
            } else {
                System.setProperty("tracewire.pcapng.direct", old);
            }
        }
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(dir.resolve("p")));
    }

    @Test
    void aFailingFileIsReported() throws IOException {
        WritableByteChannel broken = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        AsyncFileChannel ch = new AsyncFileChannel(broken, "broken");
        ch.write(ByteBuffer.allocate(AsyncFileChannel.BUFFER_BYTES)); // a full block: handed to the writer
        IOException e = assertThrows(IOException.class, () -> {
            for (int i = 0; i < 100; i++) {
                ch.write(ByteBuffer.allocate(AsyncFileChannel.BUFFER_BYTES));
                Thread.sleep(10);
            }
            ch.close();
        });
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    }
}
