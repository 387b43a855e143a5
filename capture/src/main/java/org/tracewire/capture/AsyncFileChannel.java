package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import org.tracewire.pcapng.BufferExchange;

/**
 * A channel that hands what is written to a thread of its own, which writes it to the real channel
 * (a file): the capture's emitter copies a block into one of {@value #BUFFERS} buffers of
 * {@value #BUFFER_BYTES} bytes and goes on while the kernel copies the previous ones into the page
 * cache (that write was a large part of the emitter's time at full-speed rates). When
 * every buffer is in flight the writer waits (bounded memory; a slow disk backs up into the kernel's
 * ring buffer, whose overruns are counted). A write error is reported by the next {@link #write} or
 * by {@link #close}. One writing thread.
 *
 * <p>With {@link #direct} the file is one opened with {@code O_DIRECT}
 * ({@link com.sun.nio.file.ExtendedOpenOption#DIRECT}): the blocks go from these buffers to the disk
 * without the kernel's copy into the page cache (the figures: decision 0008,
 * {@code docs/decisions/0008-pcapng-writer-thread-and-o-direct.md}). The buffers are aligned to
 * the file system's block size and every write is whole blocks; the last block is padded with zeros
 * and the file truncated to the bytes written ({@code open(2)}, "O_DIRECT").
 */
final class AsyncFileChannel implements BufferExchange {
    /** Buffers between the writing thread and the file. */
    static final int BUFFERS = 4;
    /**
     * Bytes per buffer: 4 MiB. Each {@code write()} of a block has a cost of its own besides its
     * bytes, so larger blocks cost the writer less per event (the figures: decision 0008,
     * {@code docs/decisions/0008-pcapng-writer-thread-and-o-direct.md}). Four of 4 MiB stay inside
     * the 32 MiB the launcher allows the outputs.
     */
    static final int BUFFER_BYTES = 4 << 20;
    private static final ByteBuffer END = ByteBuffer.allocate(0);

    private final WritableByteChannel target;
    /** The O_DIRECT file (truncated to {@link #written} at the end), or null for a plain channel. */
    private final FileChannel directFile;
    /** Alignment of buffers, sizes and file positions (bytes): the block size with O_DIRECT, else 1. */
    private final int block;
    /** Bytes handed to the file so far, without the padding of a last partial block (writer thread). */
    private long written;
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS);
    private final BlockingQueue<ByteBuffer> full = new ArrayBlockingQueue<>(BUFFERS + 1);
    private final Thread thread;
    private volatile IOException error;
    /** The file, for cutting it back after a failed write; null when the target is not a file. */
    private final FileChannel file;
    /** Logical offset (bytes from the file's start) of index 0 of {@link #current} (filling thread). */
    private long base;
    /**
     * Ends of whole pcapng blocks, logical offsets, in order: each {@link #exchange} is at one (the
     * pcapng writer exchanges its buffer only between blocks). Added by the filling thread, taken by
     * the writing thread as its writes pass them.
     */
    private final ConcurrentLinkedQueue<long[]> boundaries = new ConcurrentLinkedQueue<>();
    /** The last block end the file holds whole (written by the writing thread). */
    private volatile long wholeBlocks;
    /** {@link #counter}'s value at {@link #wholeBlocks}. */
    private volatile long wholeCount;
    /** Counts what the blocks before each exchange hold (e.g. event frames), or null. */
    private LongSupplier counter;
    private ByteBuffer current;
    private boolean closed;

    /** @param target the file, closed by {@link #close()} */
    AsyncFileChannel(WritableByteChannel target, String name) {
        this(target, null, 1);
    }

    /**
     * A channel onto a file opened with {@code O_DIRECT}.
     *
     * @param file      the file, empty, positioned at 0, opened with
     *                  {@link com.sun.nio.file.ExtendedOpenOption#DIRECT}; closed by {@link #close()}
     * @param blockSize its file system's block size, bytes ({@link java.nio.file.FileStore#getBlockSize}):
     *                  a power of two dividing {@value #BUFFER_BYTES}
     * @return the channel
     * @throws IllegalArgumentException for a block size that is not such a power of two
     */
    static AsyncFileChannel direct(FileChannel file, int blockSize) {
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1 || BUFFER_BYTES % blockSize != 0) {
            throw new IllegalArgumentException("O_DIRECT block size " + blockSize + " is not a power of two dividing "
                    + BUFFER_BYTES);
        }
        return new AsyncFileChannel(file, file, blockSize);
    }

    private AsyncFileChannel(WritableByteChannel target, FileChannel directFile, int block) {
        this.target = target;
        this.directFile = directFile;
        this.file = target instanceof FileChannel f ? f : null;
        this.block = block;
        for (int i = 0; i < BUFFERS; i++) {
            ByteBuffer b = block == 1 ? ByteBuffer.allocateDirect(BUFFER_BYTES)
                    : ByteBuffer.allocateDirect(BUFFER_BYTES + block).alignedSlice(block).slice(0, BUFFER_BYTES);
            free.add(b);
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
                    finish();
                    return;
                }
                if (error != null) {
                    // after a failed write nothing more goes to the file: it is cut back to its
                    // last whole block at the end
                    b.clear();
                    free.put(b);
                    continue;
                }
                try {
                    long end = written + b.remaining();
                    int tail = b.limit() % block;
                    if (tail != 0) {
                        // the last, partial block of an O_DIRECT file: zeros up to the block, cut off by finish()
                        int padded = b.limit() + block - tail;
                        b.limit(padded);
                        for (int i = padded - block + tail; i < padded; i++) {
                            b.put(i, (byte) 0);
                        }
                    }
                    while (b.hasRemaining()) {
                        target.write(b);
                    }
                    written = end;
                    long[] k;
                    while ((k = boundaries.peek()) != null && k[0] <= end) {
                        boundaries.poll();
                        wholeCount = k[1];
                        wholeBlocks = k[0];
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

    /** After the last block: an O_DIRECT file loses the padding of its last block. */
    private void finish() {
        if (directFile != null && error == null) {
            try {
                directFile.truncate(written);
            } catch (IOException e) {
                error = e;
            }
        }
        if (error != null && file != null) {
            // a write failed (out of disk) part way: the file ends at its last whole pcapng block,
            // which every reader reads to its end
            try {
                file.truncate(wholeBlocks);
            } catch (IOException ignored) {
                // the file stays longer; readers still read to its last whole block
            }
        }
    }

    /** The end of the last whole pcapng block the file holds, bytes (any thread). */
    long wholeBlocks() {
        return wholeBlocks;
    }

    /**
     * Counts what the file holds: at each exchange (a block boundary) {@code counter} is read on the
     * filling thread, and {@link #wholeCount()} is its value at {@link #wholeBlocks()}.
     *
     * @param counter e.g. the event frames written into the buffers so far
     */
    void countWith(LongSupplier counter) {
        this.counter = counter;
    }

    /** {@link #countWith}'s counter at the end of the last whole block on the file (0 before any). */
    long wholeCount() {
        return wholeCount;
    }

    /** The write error that stopped the file, or null. */
    IOException error() {
        return error;
    }

    /** @return whether the file is written with O_DIRECT ({@link #direct}) */
    boolean isDirect() {
        return directFile != null;
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

    /**
     * {@link BufferExchange}: lends the buffer being filled (the pcapng writer then writes its blocks
     * straight into it; {@link #write} would copy them in).
     */
    @Override
    public ByteBuffer lend() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        check();
        if (current == null) {
            current = take();
        }
        return current;
    }

    /**
     * {@link BufferExchange}: hands the filled buffer to the writing thread and lends the next. With
     * {@code O_DIRECT} only whole blocks go: the bytes after the last block boundary (less than a
     * block) are copied to the start of the next buffer, which is returned positioned after them;
     * while less than one block is filled the same buffer comes back.
     */
    @Override
    public ByteBuffer exchange(ByteBuffer filled) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (filled != current) {
            throw new IllegalArgumentException("not the buffer this channel lent last");
        }
        check();
        int n = filled.position();
        LongSupplier c = counter;
        boundaries.add(new long[] {base + n, c == null ? 0 : c.getAsLong()});
        int aligned = n - n % block;
        if (aligned == 0) {
            return filled;
        }
        ByteBuffer next = take();
        int tail = n - aligned;
        if (tail > 0) {
            next.put(0, filled, aligned, tail);
        }
        next.position(tail);
        filled.position(aligned);
        handOver();
        current = next;
        base += aligned;
        return next;
    }

    @Override
    public int bufferCapacity() {
        return BUFFER_BYTES;
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
