package org.tracewire.ringbuffer;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Real sub-buffers read from this machine's {@code trace_pipe_raw}, kept as a test resource
 * ({@code pages-linux-6.18-x86_64.bin.gz}: gzip of repeated {@code int cpu, int length, bytes},
 * big-endian headers, page bytes as the kernel wrote them, little-endian). Refreshed only on
 * purpose: {@code KernelOracleRecorder} writes it.
 */
public final class PageFixture {
    /** The resource name. */
    public static final String RESOURCE = "/org/tracewire/ringbuffer/pages-linux-6.18-x86_64.bin.gz";

    /** One page as read. */
    public record Page(int cpu, byte[] bytes) {
    }

    private PageFixture() {
    }

    /** Loads the checked-in pages. */
    public static List<Page> load() throws IOException {
        try (InputStream raw = PageFixture.class.getResourceAsStream(RESOURCE)) {
            if (raw == null) {
                throw new IOException("missing test resource " + RESOURCE);
            }
            DataInputStream in = new DataInputStream(new GZIPInputStream(raw));
            List<Page> pages = new ArrayList<>();
            while (in.available() > 0) {
                int cpu;
                try {
                    cpu = in.readInt();
                } catch (EOFException e) {
                    break;
                }
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                pages.add(new Page(cpu, b));
            }
            return pages;
        }
    }

    /** Writes pages in the fixture's format. */
    public static void write(Path file, List<Page> pages) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(Files.newOutputStream(file)))) {
            for (Page p : pages) {
                out.writeInt(p.cpu());
                out.writeInt(p.bytes().length);
                out.write(p.bytes());
            }
        }
    }

    /** A page's bytes as a buffer. */
    public static ByteBuffer buffer(Page p) {
        return ByteBuffer.wrap(p.bytes());
    }
}
