package org.tracewire.pcapng;

import java.io.IOException;
import java.io.InputStream;

/**
 * The buffered stream under {@link PcapngPacketReader}: whole reads of a block's bytes copied out of
 * one buffer, with no lock and no per-call layers ({@code DataInputStream} over
 * {@code BufferedInputStream} took ~2 synchronized calls and loops per read, two reads per block).
 * A refill is one {@code read} of the stream, so a pipe's reader gets what has arrived and does not
 * wait for a whole buffer. Not thread-safe.
 */
final class BlockInput {
    private final InputStream stream;
    private final byte[] buf;
    private int pos;
    private int lim;

    /**
     * @param stream the bytes (closed by {@link #close()})
     * @param size   the buffer's size in bytes
     */
    BlockInput(InputStream stream, int size) {
        this.stream = stream;
        this.buf = new byte[size];
    }

    /**
     * Reads {@code len} bytes into {@code b} at {@code off}, fewer only at the stream's end.
     *
     * @return the bytes read ({@code len}, or fewer when the stream ended)
     * @throws IOException the stream's
     */
    int readNBytes(byte[] b, int off, int len) throws IOException {
        int n = 0;
        while (n < len) {
            if (pos == lim) {
                int r = stream.read(buf, 0, buf.length);
                if (r <= 0) {
                    if (r < 0) {
                        return n;
                    }
                    continue; // a stream that returned nothing: read again, as readNBytes does
                }
                pos = 0;
                lim = r;
            }
            int k = Math.min(len - n, lim - pos);
            System.arraycopy(buf, pos, b, off + n, k);
            pos += k;
            n += k;
        }
        return n;
    }

    /** Bytes readable without blocking: those buffered, and the stream's {@code available()}. */
    int available() throws IOException {
        return lim - pos + stream.available();
    }

    /** Closes the stream. */
    void close() throws IOException {
        stream.close();
    }
}
