package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A channel that hands what is written to a thread of its own, which writes it to the real channel
 * (a file): the capture's emitter copies a block into one of {@value #BUFFERS} buffers of
 * {@value #BUFFER_BYTES} bytes and goes on while the kernel copies the previous ones into the page
 * cache (measured: about a third of the emitter's time at full-speed rates was that write). When
 * every buffer is in flight the writer waits (bounded memory; a slow disk backs up into the kernel's
 * ring buffer, whose overruns are counted). A write error is reported by the next {@link #write} or
 * by {@link #close}. One writing thread.
 */
final class AsyncFileChannel implements WritableByteChannel {
    /** Buffers between the writing thread and the file. */
    static final int BUFFERS = 4;
    /** Bytes per buffer. */
    static final int BUFFER_BYTES = 1 << 20;
    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final WritableByteChannel target;
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS);
    private final BlockingQueue<ByteBuffer> full = new ArrayBlockingQueue<>(BUFFERS + 1);
    private final Thread thread;
    private volatile IOException error;
    private ByteBuffer current;
    private boolean closed;

    /** @param target the file, closed by {@link #close()} */
    AsyncFileChannel(WritableByteChannel target, String name) {
        this.target = target;
        for (int i = 0; i < BUFFERS; i++) {
            free.add(ByteBuffer.allocateDirect(BUFFER_BYTES));
        }
        thread = new Thread(this::run, "tracewire-writer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                ByteBuffer b = full.take();
                if (b == END) {
                    return;
                }
                try {
                    while (b.hasRemaining()) {
                        target.write(b);
                    }
                } catch (IOException e) {
                    if (error == null) {
                        error = e;
                    }
                }
                b.clear();
                free.put(b);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        check();
        int n = src.remaining();
        while (src.hasRemaining()) {
            if (current == null) {
                current = take();
            }
            int k = Math.min(src.remaining(), current.remaining());
            current.put(current.position(), src, src.position(), k);
            current.position(current.position() + k);
            src.position(src.position() + k);
            if (!current.hasRemaining()) {
                handOver();
            }
        }
        return n;
    }

    private ByteBuffer take() throws IOException {
        try {
            return free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the file writer", e);
        }
    }

    private void handOver() throws IOException {
        ByteBuffer b = current;
        current = null;
        b.flip();
        try {
            full.put(b);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while handing a block to the file writer", e);
        }
    }

    private void check() throws IOException {
        IOException e = error;
        if (e != null) {
            throw new IOException("writing the file failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /** Writes what is buffered, waits for the writer, closes the file; reports a write error. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (current != null && current.position() > 0) {
                handOver();
            }
            full.put(END);
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            target.close();
        }
        check();
    }
}
