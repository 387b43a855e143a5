package org.tracewire.dissector;

import java.nio.charset.StandardCharsets;

/**
 * The one place where text becomes Lua source. Every string that comes from a format file (event,
 * system and field names, print fmt literals, flag and symbol names, fallback reasons in comments,
 * source labels) is emitted through {@link #string(String)}, which yields a double-quoted Lua
 * literal containing only printable ASCII: quotes and backslashes are escaped and every other byte
 * of the UTF-8 encoding (newlines, NUL, {@code ]}-free long-bracket tricks do not apply) becomes a
 * three-digit decimal escape. Such a literal is valid and means the same in Lua 5.2 and 5.4, and it
 * cannot end a comment, a string or a statement early, so a crafted name cannot inject code.
 */
public final class LuaWriter {
    private LuaWriter() {
    }

    /**
     * Quotes text as a Lua string literal (see the class comment).
     *
     * @param text any text; null is emitted as {@code nil}
     * @return the literal, e.g. {@code "a\"b\010"}
     */
    public static String string(String text) {
        if (text == null) {
            return "nil";
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(bytes.length + 2);
        sb.append('"');
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c == '"' || c == '\\') {
                sb.append('\\').append((char) c);
            } else if (c >= 0x20 && c < 0x7f) {
                sb.append((char) c);
            } else {
                sb.append('\\');
                if (c < 100) {
                    sb.append('0');
                }
                if (c < 10) {
                    sb.append('0');
                }
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** A Lua boolean literal. */
    public static String bool(boolean b) {
        return b ? "true" : "false";
    }
}
