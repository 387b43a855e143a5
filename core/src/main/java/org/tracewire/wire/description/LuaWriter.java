package org.tracewire.wire.description;

import java.nio.charset.StandardCharsets;

/**
 * The one place where text becomes Lua source. Every string that comes from a format file (event,
 * system and field names, print fmt literals, flag and symbol names, fallback reasons in comments,
 * source labels) is emitted through {@link #string(String)}, and every Lua identifier the generator
 * derives from such a name through {@link #name(String, String)}. {@link #string} yields a double-quoted Lua
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

    /**
     * A Lua identifier for a local: {@code prefix_part}, where part is the text reduced to
     * {@code [a-z0-9_]} (other characters become {@code _}) and cut to 40 characters. The prefix is
     * written by the generator ({@code [a-z][a-z0-9_]*}, not a Lua keyword once a {@code _} follows), so
     * the result is always a plain identifier, never a keyword.
     *
     * @param prefix the generator's own prefix, e.g. {@code flags}
     * @param text   a name from a format file (may be null or empty: then just the prefix)
     */
    public static String name(String prefix, String text) {
        if (!prefix.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("bad identifier prefix " + prefix);
        }
        if (text == null || text.isEmpty()) {
            return prefix;
        }
        StringBuilder sb = new StringBuilder(prefix).append('_');
        for (int i = 0; i < text.length() && i < 40; i++) {
            char c = Character.toLowerCase(text.charAt(i));
            sb.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        return sb.toString();
    }

    /** A Lua boolean literal. */
    public static String bool(boolean b) {
        return b ? "true" : "false";
    }
}
