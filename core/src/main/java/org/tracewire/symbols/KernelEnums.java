package org.tracewire.symbols;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Values of the kernel's enum constants, from its BTF ({@code /sys/kernel/btf/vmlinux}, format in
 * the kernel's {@code Documentation/bpf/btf.rst}): {@code BTF_KIND_ENUM} and {@code BTF_KIND_ENUM64}
 * members. Print fmts name enum constants the kernel did not resolve ({@code TRACE_DEFINE_ENUM}
 * missing), e.g. {@code HRTIMER_MODE_ABS} or {@code I_DIRTY_SYNC}; these values let the print fmt
 * evaluator compare with them. A name defined twice with different values is left out (ambiguous).
 * Immutable.
 */
public final class KernelEnums {
    private static final KernelEnums EMPTY = new KernelEnums(Map.of());
    private final Map<String, Long> values;

    /** A table from name → value (for tests and other sources). */
    public KernelEnums(Map<String, Long> values) {
        this.values = Map.copyOf(values);
    }

    /** No constants. */
    public static KernelEnums empty() {
        return EMPTY;
    }

    /**
     * Reads a raw BTF blob such as {@code /sys/kernel/btf/vmlinux}.
     *
     * @throws IOException when it cannot be read or is not BTF
     */
    public static KernelEnums load(Path btf) throws IOException {
        return parse(Files.readAllBytes(btf));
    }

    /**
     * Parses a raw BTF blob (either byte order, detected from the magic {@code 0xeB9F}).
     *
     * @throws IOException when the blob is not BTF or is truncated
     */
    public static KernelEnums parse(byte[] blob) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        if (blob.length < 24) {
            throw new IOException("BTF too short");
        }
        if ((b.getShort(0) & 0xffff) != 0xeb9f) {
            b.order(ByteOrder.BIG_ENDIAN);
            if ((b.getShort(0) & 0xffff) != 0xeb9f) {
                throw new IOException("not BTF (bad magic)");
            }
        }
        try {
            long hdrLen = b.getInt(4) & 0xffffffffL;
            long typeOff = hdrLen + (b.getInt(8) & 0xffffffffL);
            long typeLen = b.getInt(12) & 0xffffffffL;
            long strOff = hdrLen + (b.getInt(16) & 0xffffffffL);
            long strLen = b.getInt(20) & 0xffffffffL;
            if (typeOff + typeLen > blob.length || strOff + strLen > blob.length) {
                throw new IOException("BTF sections outside the blob");
            }
            Map<String, Long> out = new HashMap<>();
            Set<String> ambiguous = new HashSet<>();
            int p = (int) typeOff;
            int end = (int) (typeOff + typeLen);
            while (p + 12 <= end) {
                int info = b.getInt(p + 4);
                int vlen = info & 0xffff;
                int kind = (info >>> 24) & 0x1f;
                boolean kflag = info < 0;
                p += 12;
                switch (kind) {
                    case 1, 14, 17 -> p += 4;
                    case 3 -> p += 12;
                    case 4, 5, 15 -> p += 12 * vlen;
                    case 13 -> p += 8 * vlen;
                    case 6 -> {
                        for (int i = 0; i < vlen; i++, p += 8) {
                            int v = b.getInt(p + 4);
                            put(out, ambiguous, string(blob, strOff, strLen, b.getInt(p)),
                                    kflag ? v : v & 0xffffffffL);
                        }
                    }
                    case 19 -> {
                        for (int i = 0; i < vlen; i++, p += 12) {
                            long v = (b.getInt(p + 4) & 0xffffffffL) | ((long) b.getInt(p + 8) << 32);
                            put(out, ambiguous, string(blob, strOff, strLen, b.getInt(p)), v);
                        }
                    }
                    default -> {
                    }
                }
            }
            ambiguous.forEach(out::remove);
            return new KernelEnums(out);
        } catch (IndexOutOfBoundsException e) {
            throw new IOException("truncated BTF", e);
        }
    }

    private static void put(Map<String, Long> out, Set<String> ambiguous, String name, long value) {
        if (name.isEmpty()) {
            return;
        }
        Long old = out.putIfAbsent(name, value);
        if (old != null && old != value) {
            ambiguous.add(name);
        }
    }

    private static String string(byte[] blob, long strOff, long strLen, int off) {
        long start = strOff + (off & 0xffffffffL);
        if (off < 0 || start >= strOff + strLen) {
            return "";
        }
        int e = (int) start;
        while (e < strOff + strLen && blob[e] != 0) {
            e++;
        }
        return new String(blob, (int) start, e - (int) start, StandardCharsets.ISO_8859_1);
    }

    /** The constant's value, or null when unknown or ambiguous. */
    public Long value(String name) {
        return values.get(name);
    }

    /** Number of known constants. */
    public int size() {
        return values.size();
    }
}
