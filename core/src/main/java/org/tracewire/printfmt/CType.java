package org.tracewire.printfmt;

import org.tracewire.format.CTypes;

/**
 * A C type named in a cast or {@code sizeof} of a print fmt.
 *
 * @param text    the type as written, e.g. {@code unsigned long} or {@code const char *}
 * @param pointer true when the type is a pointer ({@code *} present)
 */
public record CType(String text, boolean pointer) {

    /** The type with qualifiers removed ({@link CTypes#normalize}). */
    public String normalized() {
        return CTypes.normalize(text);
    }

    /** The type a pointer points to (the text without its last {@code *}), or this type when not a pointer. */
    public String pointee() {
        String n = normalized();
        return n.endsWith("*") ? n.substring(0, n.length() - 1).trim() : n;
    }

    /**
     * Size in bytes under a kernel long size; pointers are long-sized; an {@code enum} is 4 bytes.
     *
     * @return the size, or -1 when the type is unknown (a typedef this project does not know)
     */
    public int size(int longSize) {
        if (pointer) {
            return longSize;
        }
        int s = CTypes.sizeOf(text, longSize);
        if (s < 0 && text.trim().startsWith("enum")) {
            return 4;
        }
        return s;
    }

    /** Signedness as C defines it ({@link CTypes#isSigned}); pointers are unsigned. */
    public boolean signed() {
        return !pointer && CTypes.isSigned(text);
    }
}
