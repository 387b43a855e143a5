package org.tracewire.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BooleanSupplier;

/**
 * A file read while another process still writes it ({@code tail -f}): at its current end a read
 * waits for more bytes while the file is {@linkplain #openForWriting open for writing}, and ends
 * (-1) once no process holds it so and every byte is read. What a capture writes with {@code -w}
 * can so be read as it grows; a block the writer has not finished is waited for, not taken as a
 * cut file, and zeros at the end of a file still written are held back until bytes follow them (an
 * {@code O_DIRECT} writer pads a partial block with zeros and writes it again later).
 */
public final class GrowingFile extends InputStream {
    /** How long a read at the file's end waits before looking again, ms. */
    static final long POLL_MS = 50;
    /** How often, at most, the writers are looked for while the file does not grow, ms. */
    static final long WRITERS_EVERY_MS = 250;

    private final FileChannel channel;
    private final BooleanSupplier written;
    private final ByteBuffer one = ByteBuffer.allocate(1);
    private long position;
    private long lastLook;
    private boolean lastAnswer = true;

    private GrowingFile(FileChannel channel, BooleanSupplier written) {
        this.channel = channel;
        this.written = written;
    }

    /**
     * Opens a file to read as it grows; it ends when no process has it open for writing.
     *
     * @param file the file (not followed if a symbolic link)
     * @return the stream, at the file's start
     * @throws IOException when the file cannot be opened
     */
    public static GrowingFile open(Path file) throws IOException {
        Path real = file.toRealPath();
        FileChannel ch = FileChannel.open(real, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        return new GrowingFile(ch, () -> openForWriting(real));
    }

    /**
     * Opens a file to read as it grows while {@code written} says it is still being written.
     *
     * @param file    the file
     * @param written true while the writer may add bytes
     * @return the stream, at the file's start
     * @throws IOException when the file cannot be opened
     */
    public static GrowingFile open(Path file, BooleanSupplier written) throws IOException {
        return new GrowingFile(FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS), written);
    }

    /**
     * True when a process of this host holds the file open for writing: a {@code /proc/PID/fd}
     * link to it whose {@code fdinfo} flags have {@code O_WRONLY} or {@code O_RDWR} ({@code proc(5)}).
     * Processes whose descriptors this one may not read are not seen (run as their user, or root).
     *
     * @param real the file's real path ({@link Path#toRealPath})
     */
    public static boolean openForWriting(Path real) {
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
                    for (Path fd : fds) {
                        if (!real.equals(readLink(fd))) {
                            continue;
                        }
                        for (String line : Files.readAllLines(proc.resolve("fdinfo").resolve(fd.getFileName()))) {
                            if (line.startsWith("flags:") && (Integer.parseInt(line.substring(6).strip(), 8) & 3) != 0) {
                                return true;
                            }
                        }
                    }
                } catch (IOException | RuntimeException gone) {
                    // exited, or not ours to read
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static Path readLink(Path fd) {
        try {
            return Files.readSymbolicLink(fd);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public int read() throws IOException {
        one.clear();
        int n = read(one);
        return n < 0 ? -1 : one.get(0) & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        return read(ByteBuffer.wrap(b, off, len));
    }

    private int read(ByteBuffer into) throws IOException {
        while (true) {
            int start = into.position();
            int n = channel.read(into, position);
            if (n > 0 && position + n >= channel.size() && lastAnswer) {
                // at the end of a file still written: zeros there may be the padding of a block an
                // O_DIRECT writer has not finished (it writes the block again): not yet
                int end = start + n;
                while (end > start && into.get(end - 1) == 0) {
                    end--;
                }
                into.position(end);
                n = end - start;
            }
            if (n > 0) {
                position += n;
                return n;
            }
            if (!stillWritten()) {
                // the writer is gone: what it wrote last is there now
                n = channel.read(into, position);
                if (n > 0) {
                    position += n;
                    return n;
                }
                return -1;
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the file to grow");
            }
        }
    }

    private boolean stillWritten() {
        long now = System.nanoTime() / 1_000_000;
        if (now - lastLook >= WRITERS_EVERY_MS) {
            lastLook = now;
            lastAnswer = written.getAsBoolean();
        }
        return lastAnswer;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
