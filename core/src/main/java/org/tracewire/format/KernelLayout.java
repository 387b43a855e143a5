package org.tracewire.format;

import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The traced kernel's data layout: byte order of every multi-byte value in the ring buffer and
 * {@code sizeof(long)}. Never assumed from the JVM's host: the long size comes from
 * {@code events/header_page} (the size of {@code local_t commit}), the byte order from whoever
 * produced the data (the running kernel is native order; a snapshot states it).
 *
 * @param byteOrder byte order of the kernel that wrote the records
 * @param longSize  {@code sizeof(long)} in bytes: 4 or 8
 */
public record KernelLayout(ByteOrder byteOrder, int longSize) {
    public KernelLayout {
        Objects.requireNonNull(byteOrder, "byteOrder");
        if (longSize != 4 && longSize != 8) {
            throw new IllegalArgumentException("long size must be 4 or 8 bytes, got " + longSize);
        }
    }

    /** The layout of the kernel this JVM runs on: native byte order, 8-byte long on 64-bit. */
    public static KernelLayout host() {
        String model = System.getProperty("sun.arch.data.model", "64");
        return new KernelLayout(ByteOrder.nativeOrder(), "32".equals(model) ? 4 : 8);
    }

    /**
     * The layout described by a parsed {@code events/header_page}: long size = size of its
     * {@code commit} field.
     *
     * @param headerPage fields parsed by {@link FormatParser#parseHeaderPage(String, String)}
     * @param byteOrder  byte order of the kernel that wrote the data
     * @throws FormatException when {@code commit} is missing or not 4 or 8 bytes
     */
    public static KernelLayout fromHeaderPage(HeaderPage headerPage, ByteOrder byteOrder) {
        Field commit = headerPage.commit();
        if (commit.size() != 4 && commit.size() != 8) {
            throw new FormatException(headerPage.source(), 1, 1,
                    "header_page: commit has size " + commit.size() + ", expected 4 or 8");
        }
        return new KernelLayout(byteOrder, commit.size());
    }
}
