package org.tracewire.pcapng;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A channel that lends its own buffers to be filled and takes them back filled, so what is written
 * is not copied once more on its way (the capture's file writer: {@code AsyncFileChannel}).
 * {@link PcapngWriter} writes its blocks straight into the lent buffer when its channel is one.
 *
 * <p>Protocol: {@link #lend()} once, fill the buffer from its position on, then {@link #exchange}
 * it (position = end of what was filled) for the next one, which may already hold bytes carried
 * over (its position is after them: keep filling there). {@link #close()} writes what the last lent
 * buffer holds up to its position. Bytes reach the channel in the order filled. Not thread-safe.
 */
public interface BufferExchange extends WritableByteChannel {
    /**
     * The first buffer to fill.
     *
     * @return a buffer whose position is where filling starts (0) and whose capacity is
     *         {@link #bufferCapacity()}; its byte order is unspecified (set the one you need)
     * @throws IOException when the channel failed or was closed
     */
    ByteBuffer lend() throws IOException;

    /**
     * Takes back the buffer last lent, filled up to its position, and lends the next one.
     *
     * @param filled the buffer last lent ({@link #lend} or this method), filled from 0 to its position
     * @return the buffer to go on filling, at its position (bytes before it are carried over from
     *         {@code filled} and already count as written); at least {@code bufferCapacity() - 4096}
     *         bytes of room
     * @throws IOException              when writing failed earlier or the channel is closed
     * @throws IllegalArgumentException when {@code filled} is not the buffer last lent
     */
    ByteBuffer exchange(ByteBuffer filled) throws IOException;

    /** Bytes each lent buffer holds. */
    int bufferCapacity();
}
