package org.tracewire.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrowingFileTest {
    @Test
    void readsWhatIsWrittenUntilTheWriterIsDone(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("grows");
        byte[] all = new byte[300_000];
        new Random(7).nextBytes(all);
        AtomicBoolean writing = new AtomicBoolean(true);
        Files.write(f, new byte[0]);
        Thread writer = new Thread(() -> {
            try (OutputStream out = Files.newOutputStream(f)) {
                for (int i = 0; i < all.length; i += 30_000) {
                    out.write(all, i, 30_000);
                    out.flush();
                    Thread.sleep(30);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                writing.set(false);
            }
        });
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (InputStream in = GrowingFile.open(f, writing::get)) {
            writer.start();
            in.transferTo(got);
        }
        writer.join();
        assertArrayEquals(all, got.toByteArray(), "every byte, in order, though the reader met the end many times");
    }

    @Test
    void zerosAtTheEndOfAFileStillWrittenWaitForWhatReplacesThem(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("padded");
        AtomicBoolean writing = new AtomicBoolean(true);
        // an O_DIRECT writer: "abc" padded with zeros to a block, later written again with more
        Files.write(f, new byte[] {'a', 'b', 'c', 0, 0, 0, 0, 0});
        Thread writer = new Thread(() -> {
            try {
                Thread.sleep(300);
                try (var ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    ch.write(ByteBuffer.wrap(new byte[] {'a', 'b', 'c', 'd', 'e', 0, 'f', 0}), 0);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                writing.set(false);
            }
        });
        writer.start();
        byte[] got;
        try (InputStream in = GrowingFile.open(f, writing::get)) {
            got = in.readAllBytes();
        }
        writer.join();
        assertArrayEquals(new byte[] {'a', 'b', 'c', 'd', 'e', 0, 'f', 0}, got,
                "the padding was not taken for data; zeros inside and, once written, at the end are");
    }

    @Test
    void aWriterIsSeenThroughProc(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("open").toAbsolutePath();
        Files.write(f, new byte[1]);
        Path real = f.toRealPath();
        assertFalse(GrowingFile.openForWriting(real), "nobody writes it");
        try (OutputStream out = Files.newOutputStream(f)) {
            assertTrue(GrowingFile.openForWriting(real), "this process holds it open for writing");
        }
        try (InputStream in = Files.newInputStream(f)) {
            assertFalse(GrowingFile.openForWriting(real), "open for reading only");
        }
    }
}
