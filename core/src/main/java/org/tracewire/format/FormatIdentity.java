package org.tracewire.format;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The 64-bit format identity hash of a kernel's event formats, carried in every tracewire frame
 * header (see {@code docs/wire-format.md}, "Format identity hash"): the first 8 bytes, read
 * big-endian, of SHA-256 over a canonical serialization of every {@link EventFormat} of a
 * {@link FormatCatalog}, so a receiver can tell whether its dissector was generated from the same
 * formats as the sender's kernel.
 *
 * <p>Canonical serialization (all integers big-endian; {@code str} = u32 byte length + UTF-8 bytes):
 * <pre>
 * catalog := str "tracewire-formats-v1", u32 N, N x format      (formats sorted by id, then system:name)
 * format  := str system, str name, u32 id,
 *            u32 C, C x field (common fields, file order),
 *            u32 F, F x field (own fields, file order),
 *            str printFmt
 * field   := str type, str name, i32 offset, i32 size, u8 signed (0|1), i32 arrayLength (-1 = not an array)
 * </pre>
 * Formats that failed to parse ({@link FormatCatalog#failures()}) are not part of it. Parsing the
 * same text (a live tracefs or its snapshot) always gives the same hash.
 */
public final class FormatIdentity {
    private static final String TAG = "tracewire-formats-v1";

    private FormatIdentity() {
    }

    /**
     * The identity hash of a catalog.
     *
     * @param catalog parsed formats (any order)
     * @return the first 8 bytes of the SHA-256 digest as a big-endian long
     */
    public static long of(FormatCatalog catalog) {
        return of(catalog.formats());
    }

    /**
     * The identity hash of a list of formats (sorted by id, then {@code system:name}, before hashing).
     *
     * @param formats parsed formats in any order
     * @return the first 8 bytes of the SHA-256 digest as a big-endian long
     */
    public static long of(List<EventFormat> formats) {
        byte[] d = digest(formats);
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (d[i] & 0xff);
        }
        return h;
    }

    /** The full SHA-256 digest (32 bytes) of the canonical serialization. */
    public static byte[] digest(List<EventFormat> formats) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            return md.digest(canonical(formats));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The canonical serialization the hash is computed over (documented in the class comment). */
    public static byte[] canonical(List<EventFormat> formats) {
        List<EventFormat> sorted = new ArrayList<>(formats);
        sorted.sort(Comparator.comparingInt(EventFormat::id).thenComparing(EventFormat::fullName));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 20);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            str(out, TAG);
            out.writeInt(sorted.size());
            for (EventFormat f : sorted) {
                str(out, f.system());
                str(out, f.name());
                out.writeInt(f.id());
                fields(out, f.commonFields());
                fields(out, f.fields());
                str(out, f.printFmt());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The hash as 16 lower-case hex digits, as documents and the dissector show it. */
    public static String hex(long hash) {
        return String.format("%016x", hash);
    }

    private static void fields(DataOutputStream out, List<Field> fields) throws IOException {
        out.writeInt(fields.size());
        for (Field f : fields) {
            str(out, f.type());
            str(out, f.name());
            out.writeInt(f.offset());
            out.writeInt(f.size());
            out.writeByte(f.signed() ? 1 : 0);
            out.writeInt(f.arrayLength());
        }
    }

    private static void str(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
