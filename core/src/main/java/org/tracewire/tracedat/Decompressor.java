package org.tracewire.tracedat;

import com.github.luben.zstd.Zstd;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The compression algorithms of trace-cmd v7 files: {@code zstd} (zstd-jni) and {@code zlib}
 * ({@link Inflater}, zlib-wrapped deflate as zlib's {@code compress2()} writes it). Every block
 * states its uncompressed size; the result must have exactly that size, and no more than
 * {@link #MAX_BLOCK} bytes are ever allocated for one block.
 */
final class Decompressor {
    /** The largest uncompressed block accepted (a section or a CPU-data chunk), in bytes. */
    static final int MAX_BLOCK = 256 << 20;
    /** zlib's deflate cannot compress better than about 1032:1. */
    private static final long ZLIB_MAX_RATIO = 1100;

    private final String name;

    private Decompressor(String name) {
        this.name = name;
    }

    /**
     * @param name   the file's compression algorithm name
     * @param offset where the name is in the file, for the error
     * @return the decompressor, or null for {@code "none"} / empty
     * @throws TraceDatException for an algorithm this reader does not know
     */
    static Decompressor of(String name, long offset) {
        if (name.isEmpty() || name.equals("none")) {
            return null;
        }
        if (name.equals("zstd") || name.equals("zlib")) {
            return new Decompressor(name);
        }
        throw new TraceDatException(offset, "unsupported compression algorithm '" + name + "' (zstd, zlib, none)");
    }

    String name() {
        return name;
    }

    /**
     * @param src    the compressed bytes
     * @param size   the uncompressed size the file states
     * @param offset file offset of the block, for errors
     */
    byte[] decompress(byte[] src, long size, long offset) {
        if (size < 0 || size > MAX_BLOCK) {
            throw new TraceDatException(offset, "uncompressed size " + size + " outside 0.." + MAX_BLOCK);
        }
        if (name.equals("zstd")) {
            long declared = Zstd.getFrameContentSize(src);
            if (declared >= 0 && declared != size) {
                throw new TraceDatException(offset, "zstd frame holds " + declared + " bytes, the block says " + size);
            }
            if (declared < 0 && declared != -1) {
                throw new TraceDatException(offset, "not a zstd frame");
            }
            byte[] out = new byte[(int) size];
            long n;
            try {
                n = Zstd.decompressByteArray(out, 0, out.length, src, 0, src.length);
            } catch (RuntimeException e) {
                throw new TraceDatException(offset, "zstd: " + e.getMessage());
            }
            if (Zstd.isError(n)) {
                throw new TraceDatException(offset, "zstd: " + Zstd.getErrorName(n));
            }
            if (n != size) {
                throw new TraceDatException(offset, "zstd block gave " + n + " bytes, expected " + size);
            }
            return out;
        }
        if (size > src.length * ZLIB_MAX_RATIO + 64) {
            throw new TraceDatException(offset, "uncompressed size " + size + " is impossible for " + src.length
                    + " zlib bytes");
        }
        Inflater inf = new Inflater();
        try {
            inf.setInput(src);
            byte[] out = new byte[(int) size];
            int n = 0;
            while (n < out.length && !inf.finished()) {
                int r = inf.inflate(out, n, out.length - n);
                if (r == 0 && (inf.needsInput() || inf.needsDictionary())) {
                    break;
                }
                n += r;
            }
            if (n != size || !inf.finished()) {
                throw new TraceDatException(offset, "zlib block gave " + n + " bytes"
                        + (inf.finished() ? "" : " and did not end") + ", expected " + size);
            }
            return out;
        } catch (DataFormatException e) {
            throw new TraceDatException(offset, "zlib: " + e.getMessage());
        } finally {
            inf.end();
        }
    }
}
