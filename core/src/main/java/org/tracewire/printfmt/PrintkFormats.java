package org.tracewire.printfmt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The kernel's {@code printk_formats} file: constant strings ({@code trace_printk} formats,
 * {@code tracepoint_string()}s) by address, one {@code 0xADDR : "text"} line each, written by
 * {@code t_show()} in {@code kernel/trace/trace_printk.c} (which escapes {@code \n \t \\ \"} and
 * other control characters). A print fmt's {@code %s} of a {@code const char *} field printed the
 * string at that address; this table recovers it. Immutable.
 */
public final class PrintkFormats {
    private static final PrintkFormats EMPTY = new PrintkFormats(Map.of());
    private final Map<Long, String> strings;

    /** A table from address → unescaped text (for tests and callers that build it themselves). */
    public PrintkFormats(Map<Long, String> strings) {
        this.strings = Map.copyOf(strings);
    }

    private PrintkFormats(Map<Long, String> strings, boolean view) {
        this.strings = strings;
    }

    /**
     * A table over a map its owner keeps adding to (not copied), for readers that learn strings as
     * a stream goes on ({@code org.tracewire.wire.WireContext}). Lookups see later additions; not
     * safe against concurrent changes of the map.
     */
    public static PrintkFormats view(Map<Long, String> strings) {
        return new PrintkFormats(Objects.requireNonNull(strings, "strings"), true);
    }

    /** A table with no strings. */
    public static PrintkFormats empty() {
        return EMPTY;
    }

    /** Reads a {@code printk_formats} file. @throws IOException when it cannot be read */
    public static PrintkFormats load(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    /** Parses {@code printk_formats} text; lines not of the form {@code 0xADDR : "text"} are skipped. */
    public static PrintkFormats parse(String text) {
        Map<Long, String> map = new HashMap<>();
        for (String line : text.split("\n")) {
            int colon = line.indexOf(" : \"");
            if (!line.startsWith("0x") || colon < 0 || !line.endsWith("\"")) {
                continue;
            }
            long addr;
            try {
                addr = Long.parseUnsignedLong(line.substring(2, colon), 16);
            } catch (NumberFormatException e) {
                continue;
            }
            String body = line.substring(colon + 4, line.length() - 1);
            map.putIfAbsent(addr, unescape(body));
        }
        return new PrintkFormats(map);
    }

    private static String unescape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                sb.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'a' -> sb.append('\007');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'v' -> sb.append('\013');
                case 'e' -> sb.append('\033');
                default -> {
                    if (e >= '0' && e <= '7') {
                        int start = i;
                        while (i + 1 < s.length() && i + 1 - start < 3 && s.charAt(i + 1) >= '0' && s.charAt(i + 1) <= '7') {
                            i++;
                        }
                        sb.append((char) Integer.parseInt(s.substring(start, i + 1), 8));
                    } else {
                        sb.append(e);
                    }
                }
            }
        }
        return sb.toString();
    }

    /** The text at {@code address}, or null when the table has none. */
    public String lookup(long address) {
        return strings.get(address);
    }

    /** Number of strings in the table. */
    public int size() {
        return strings.size();
    }
}
