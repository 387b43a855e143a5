package org.tracewire.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
