package org.tracewire.tracefs;

import java.util.ArrayList;
import java.util.List;

/**
 * Entries of a tracefs {@code error_log} ({@code Documentation/trace/ftrace.rst}, "error_log"):
 * <pre>
 * [ 1026.450300] event filter parse error: error: Field not found
 *   Command: prev_pidd == 1
 *                      ^
 * </pre>
 * The caret sits under the position where the kernel's parser stopped.
 *
 * @param entries parsed entries in file order
 */
public record ErrorLog(List<Entry> entries) {
    /**
     * One entry.
     *
     * @param location what reported it, e.g. {@code event filter parse error}
     * @param message  the error text, e.g. {@code Field not found}
     * @param command  the command text the kernel quotes
     * @param position 0-based caret position in {@code command}, or -1
     */
    public record Entry(String location, String message, String command, int position) {
    }

    private static final String COMMAND = "  Command: ";

    /** Parses the file's text; lines it does not recognise are skipped. */
    public static ErrorLog parse(String text) {
        List<Entry> entries = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (!l.startsWith("[")) {
                continue;
            }
            int close = l.indexOf("] ");
            if (close < 0) {
                continue;
            }
            String rest = l.substring(close + 2);
            int err = rest.indexOf(": error: ");
            String location = err >= 0 ? rest.substring(0, err) : rest;
            String message = err >= 0 ? rest.substring(err + ": error: ".length()) : rest;
            String command = "";
            int position = -1;
            if (i + 1 < lines.length && lines[i + 1].startsWith(COMMAND)) {
                command = lines[i + 1].substring(COMMAND.length());
                if (i + 2 < lines.length && lines[i + 2].trim().equals("^")) {
                    position = lines[i + 2].indexOf('^') - COMMAND.length();
                }
            }
            entries.add(new Entry(location, message.strip(), command, position));
        }
        return new ErrorLog(List.copyOf(entries));
    }

    /** The entries after the first {@code skip}. */
    public List<Entry> since(int skip) {
        return entries.subList(Math.min(skip, entries.size()), entries.size());
    }
}
