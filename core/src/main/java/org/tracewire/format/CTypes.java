package org.tracewire.format;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Sizes of the C scalar type names that appear in format files and in print fmt casts.
 * Only used where the kernel does not state a size itself (casts, element types of dynamic
 * arrays); field sizes always come from the format file.
 */
public final class CTypes {
    private static final Map<String, Integer> FIXED = Map.ofEntries(
            Map.entry("char", 1), Map.entry("signed char", 1), Map.entry("unsigned char", 1),
            Map.entry("bool", 1), Map.entry("_Bool", 1),
            Map.entry("u8", 1), Map.entry("s8", 1), Map.entry("__u8", 1), Map.entry("__s8", 1),
            Map.entry("uint8_t", 1), Map.entry("int8_t", 1),
            Map.entry("short", 2), Map.entry("unsigned short", 2), Map.entry("short int", 2),
            Map.entry("short unsigned int", 2), Map.entry("u16", 2), Map.entry("s16", 2),
            Map.entry("__u16", 2), Map.entry("__s16", 2), Map.entry("uint16_t", 2), Map.entry("int16_t", 2),
            Map.entry("__le16", 2), Map.entry("__be16", 2),
            Map.entry("int", 4), Map.entry("unsigned int", 4), Map.entry("unsigned", 4), Map.entry("signed", 4),
            Map.entry("u32", 4), Map.entry("s32", 4), Map.entry("__u32", 4), Map.entry("__s32", 4),
            Map.entry("uint32_t", 4), Map.entry("int32_t", 4), Map.entry("__le32", 4), Map.entry("__be32", 4),
            Map.entry("pid_t", 4), Map.entry("uid_t", 4), Map.entry("gid_t", 4), Map.entry("dev_t", 4),
            Map.entry("gfp_t", 4), Map.entry("uint", 4),
            Map.entry("long long", 8), Map.entry("unsigned long long", 8), Map.entry("long long int", 8),
            Map.entry("long long unsigned int", 8), Map.entry("u64", 8), Map.entry("s64", 8),
            Map.entry("__u64", 8), Map.entry("__s64", 8), Map.entry("uint64_t", 8), Map.entry("int64_t", 8),
            Map.entry("__le64", 8), Map.entry("__be64", 8), Map.entry("loff_t", 8), Map.entry("sector_t", 8),
            Map.entry("ino_t", 8), Map.entry("ktime_t", 8));

    private CTypes() {
    }

    /**
     * Size in bytes of a C scalar type name.
     *
     * @param type     a type name such as {@code "unsigned long"} or {@code "u32"}; qualifiers
     *                 ({@code const}, {@code volatile}) are ignored; any pointer is long-sized
     * @param longSize the kernel's {@code sizeof(long)} in bytes (4 or 8)
     * @return the size, or -1 when the name is unknown
     */
    public static int sizeOf(String type, int longSize) {
        String t = normalize(type);
        if (t.endsWith("*")) {
            return longSize;
        }
        Integer fixed = FIXED.get(t);
        if (fixed != null) {
            return fixed;
        }
        switch (t) {
            case "long", "unsigned long", "long int", "long unsigned int", "signed long", "size_t",
                 "ssize_t", "unsigned long int", "uintptr_t", "intptr_t", "off_t", "time64_t" -> {
                return longSize;
            }
            default -> {
                return -1;
            }
        }
    }

    /**
     * Whether a C scalar type name is signed, as C defines it ({@code char} counts as signed, as on
     * x86). Unknown names are taken as unsigned.
     */
    public static boolean isSigned(String type) {
        String t = normalize(type);
        if (t.endsWith("*") || t.startsWith("unsigned") || t.startsWith("u") || t.startsWith("__u")
                || t.startsWith("__le") || t.startsWith("__be") || t.equals("bool") || t.equals("_Bool")
                || t.equals("size_t") || t.equals("dev_t") || t.equals("gfp_t") || t.equals("sector_t")
                || t.equals("ino_t")) {
            return false;
        }
        return true;
    }

    private static final Pattern QUALIFIERS = Pattern.compile("\\b(const|volatile|struct|enum)\\b");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    /** Normalized names by name: print fmts evaluate casts per record, over a few dozen type names. */
    private static final Map<String, String> NORMALIZED = new ConcurrentHashMap<>();
    private static final int MAX_MEMO = 4096;

    /** Drops qualifiers and folds white space: {@code "const  unsigned   int"} → {@code "unsigned int"}. */
    public static String normalize(String type) {
        String n = NORMALIZED.get(type);
        if (n != null) {
            return n;
        }
        String t = QUALIFIERS.matcher(type).replaceAll(" ");
        boolean pointer = t.contains("*");
        t = SPACES.matcher(t.replace("*", " ")).replaceAll(" ").trim();
        n = pointer ? t + " *" : t;
        if (NORMALIZED.size() < MAX_MEMO) {
            NORMALIZED.put(type, n);
        }
        return n;
    }
}
