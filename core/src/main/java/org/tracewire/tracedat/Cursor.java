package org.tracewire.tracedat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * Sequential reads of a trace.dat's metadata, every one bounds-checked: over the file itself
 * (positioned reads of a {@link FileChannel}, offsets are file offsets) or over the decompressed
 * bytes of a v7 section (offsets are positions in those bytes; errors name the section's file
 * offset). Numbers in the file's byte order.
 */
final class Cursor {
    /** The longest NUL-terminated name read (system names, clock, instance names). */
    static final int MAX_NAME = 4096;

    private final FileChannel file;
    private final ByteBuffer memory;
    private final long limit;
    private final long sectionOffset;
    private final String label;
    private ByteOrder order;
    private long pos;

    private Cursor(FileChannel file, ByteBuffer memory, long limit, long sectionOffset, String label, ByteOrder order) {
        this.file = file;
        this.memory = memory;
        this.limit = limit;
        this.sectionOffset = sectionOffset;
        this.label = label;
        this.order = order;
    }

    static Cursor ofFile(FileChannel ch, long size, ByteOrder order) {
        return new Cursor(ch, null, size, -1, null, order);
    }

    static Cursor ofSection(byte[] bytes, long sectionOffset, String label, ByteOrder order) {
        return new Cursor(null, ByteBuffer.wrap(bytes), bytes.length, sectionOffset, label, order);
    }

    void order(ByteOrder o) {
        order = o;
    }

    ByteOrder order() {
        return order;
    }

    long position() {
        return pos;
    }

    Cursor seek(long p) {
        if (p < 0 || p > limit) {
            throw error(p, "offset " + p + " lies outside the " + (memory == null ? "file" : "section") + " (size "
                    + limit + ")");
        }
        pos = p;
        return this;
    }

    long limit() {
        return limit;
    }

    long remaining() {
        return limit - pos;
    }

    /** An error at position {@code p} of this cursor. */
    TraceDatException error(long p, String detail) {
        if (memory == null) {
            return new TraceDatException(p, detail);
        }
        return new TraceDatException(sectionOffset, label + " section, byte " + p + " of its " + limit
                + " decompressed bytes: " + detail);
    }

    TraceDatException error(String detail) {
        return error(pos, detail);
    }

    /** Reads {@code n} bytes (n ≤ remaining) into a new buffer in the file's order. */
    ByteBuffer bytes(long n, String what) {
        if (n < 0 || n > remaining()) {
            throw error(what + " of " + n + " bytes runs past the end (" + remaining() + " bytes left)");
        }
        if (n > Integer.MAX_VALUE - 16) {
            throw error(what + " of " + n + " bytes is too large");
        }
        ByteBuffer b = ByteBuffer.allocate((int) n);
        if (memory != null) {
            b.put(0, memory, (int) pos, (int) n);
        } else {
            readFully(file, pos, b);
        }
        pos += n;
        return b.order(order);
    }

    static void readFully(FileChannel ch, long at, ByteBuffer b) {
        try {
            b.clear();
            while (b.hasRemaining()) {
                int r = ch.read(b, at + b.position());
                if (r < 0) {
                    throw new TraceDatException(at + b.position(), "unexpected end of file");
                }
            }
            b.flip();
        } catch (IOException e) {
            throw new UncheckedIOException("reading trace.dat at offset " + at, e);
        }
    }

    int u8(String what) {
        return bytes(1, what).get(0) & 0xff;
    }

    int u16(String what) {
        return bytes(2, what).getShort(0) & 0xffff;
    }

    long u32(String what) {
        return bytes(4, what).getInt(0) & 0xffffffffL;
    }

    long u64(String what) {
        return bytes(8, what).getLong(0);
    }

    /** A u64 size that must fit in what is left. */
    long size64(String what) {
        long at = pos;
        long n = u64(what + " size");
        if (n < 0 || n > remaining()) {
            throw error(at, what + " size " + Long.toUnsignedString(n) + " exceeds the " + remaining() + " bytes left");
        }
        return n;
    }

    /** A u32 size that must fit in what is left. */
    long size32(String what) {
        long at = pos;
        long n = u32(what + " size");
        if (n > remaining()) {
            throw error(at, what + " size " + n + " exceeds the " + remaining() + " bytes left");
        }
        return n;
    }

    /** A count of items that each take at least {@code minItemBytes} bytes. */
    long count32(String what, int minItemBytes) {
        long at = pos;
        long n = u32(what);
        if (n * minItemBytes > remaining()) {
            throw error(at, what + " " + n + " cannot fit in the " + remaining() + " bytes left");
        }
        return n;
    }

    /** Text of {@code n} bytes (UTF-8, a trailing NUL dropped). */
    String text(long n, String what) {
        ByteBuffer b = bytes(n, what);
        int len = b.limit();
        while (len > 0 && b.get(len - 1) == 0) {
            len--;
        }
        return new String(b.array(), 0, len, StandardCharsets.UTF_8);
    }

    /** A NUL-terminated string of at most {@link #MAX_NAME} bytes. */
    String cstring(String what) {
        long at = pos;
        long max = Math.min(remaining(), MAX_NAME + 1);
        ByteBuffer b = peek(max);
        for (int i = 0; i < b.limit(); i++) {
            if (b.get(i) == 0) {
                pos += i + 1;
                return new String(b.array(), 0, i, StandardCharsets.UTF_8);
            }
        }
        throw error(at, what + ": no NUL terminator within " + max + " bytes");
    }

    /** Checks that the next bytes are {@code expected} (compared as ASCII, NUL included). */
    void expect(String expected, String what) {
        long at = pos;
        byte[] want = expected.getBytes(StandardCharsets.ISO_8859_1);
        if (remaining() < want.length) {
            throw error(at, "expected " + what + " but the data ends");
        }
        ByteBuffer b = bytes(want.length, what);
        for (int i = 0; i < want.length; i++) {
            if (b.get(i) != want[i]) {
                throw error(at, "expected " + what + " '" + expected.replace("\0", "\\0") + "'");
            }
        }
    }

    /** The next {@code n} bytes without moving. */
    ByteBuffer peek(long n) {
        long at = pos;
        ByteBuffer b = bytes(n, "data");
        pos = at;
        return b;
    }
}
