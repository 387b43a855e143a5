package org.tracewire.format;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the text of tracefs {@code format} files into {@link EventFormat}s, and
 * {@code events/header_page} into a {@link HeaderPage}. The layout is the one
 * {@code kernel/trace/trace_events.c} writes ({@code f_show()}):
 * <pre>
 * name: sched_switch
 * ID: 372
 * format:
 * 	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 * 	...                                  (a blank line ends the common fields)
 * 	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *
 * print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 * </pre>
 * Stateless and thread-safe. Every malformed input raises {@link FormatException} with the
 * source, line and column; no other exception escapes.
 */
public final class FormatParser {
    // the leftmost name that only spaces and one [...] follow to the end; the look-behind and the
    // possessive quantifiers skip starts inside a word and backtracking that cannot match (the same
    // matches, 2.3x faster on the snapshot's 21,098 declarations)
    private static final Pattern NAME_AND_ARRAY =
            Pattern.compile("(?<![A-Za-z_])([A-Za-z_][A-Za-z0-9_]*+)\\s*+(\\[([^\\]]*+)\\])?$");
    // compiled once: every format of every file opened is parsed (a trace.dat has ~1,500)
    private static final Pattern UNSIGNED = Pattern.compile("\\d{1,9}");
    private static final Pattern BITS = Pattern.compile("^(\\w+)\\s*:\\s*(\\d{1,3})\\s+bits$");
    private static final Pattern TYPE = Pattern.compile("^(\\w+)\\s*:\\s*type\\s*==\\s*(\\d{1,3})$");
    private static final Pattern MAX = Pattern.compile("^data max type_len\\s*==\\s*(\\d{1,3})$");
    private static final int MAX_SIZE = 1 << 20;

    private FormatParser() {
    }

    /**
     * Parses one event's {@code format} file.
     *
     * @param system the event's system (the directory name; the file itself does not say it)
     * @param text   the whole file
     * @param source a path or label used in error messages
     * @return the immutable format
     * @throws FormatException when the text does not follow the kernel's layout
     */
    public static EventFormat parse(String system, String text, String source) {
        try {
            return parseUnchecked(system, text, source);
        } catch (FormatException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new FormatException(source, 1, 1, "unexpected: " + e);
        }
    }

    /** {@link #parse} without its catch-all: one pass over the file's lines, one branch per kind. */
    private static EventFormat parseUnchecked(String system, String text, String source) {
        String[] lines = text.split("\n", -1);
        String name = null;
        Integer id = null;
        String printFmt = "";
        boolean inFormat = false;
        List<Field> common = new ArrayList<>();
        List<Field> own = new ArrayList<>();
        boolean commonDone = false;
        Set<String> names = new HashSet<>();
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i];
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            String trimmed = line.strip();
            if (line.startsWith("name:")) {
                name = nameLine(line, name, source, lineNo);
            } else if (line.startsWith("ID:")) {
                id = idLine(line, id, source, lineNo);
            } else if (line.equals("format:")) {
                if (name == null || id == null) {
                    throw new FormatException(source, lineNo, 1, "'format:' before 'name:' and 'ID:'");
                }
                inFormat = true;
            } else if (line.startsWith("print fmt:")) {
                if (!inFormat) {
                    throw new FormatException(source, lineNo, 1, "'print fmt:' before 'format:'");
                }
                printFmt = printFmt(line, lines, i);
                break;
            } else if (trimmed.isEmpty()) {
                if (inFormat && !common.isEmpty()) {
                    commonDone = true;
                }
            } else if (trimmed.startsWith("field:")) {
                if (!inFormat) {
                    throw new FormatException(source, lineNo, 1, "field line before 'format:'");
                }
                Field f = parseFieldLine(line, source, lineNo, !commonDone);
                if (!names.add(f.name())) {
                    throw new FormatException(source, lineNo, line.indexOf("field:") + 1,
                            "duplicate field name '" + f.name() + "'");
                }
                (commonDone ? own : common).add(f);
            } else {
                throw new FormatException(source, lineNo, 1, "unexpected line: " + abbreviate(trimmed));
            }
        }
        if (name == null || id == null || !inFormat) {
            throw new FormatException(source, 1, 1, name == null ? "no 'name:' line" : id == null ? "no 'ID:' line"
                    : "no 'format:' line");
        }
        return new EventFormat(system, name, id, common, own, printFmt);
    }

    /**
     * The print fmt starting on line {@code i} ({@code line}, without its CR): a TP_printk string
     * may hold raw newlines, so it runs to the end of the file.
     */
    private static String printFmt(String line, String[] lines, int i) {
        StringBuilder pf = new StringBuilder(line.substring("print fmt:".length()));
        for (int j = i + 1; j < lines.length; j++) {
            pf.append('\n').append(lines[j]);
        }
        return pf.toString().strip();
    }

    /** The event's name from its {@code name:} line; {@code before} is the name of an earlier one (an error). */
    private static String nameLine(String line, String before, String source, int lineNo) {
        if (before != null) {
            throw new FormatException(source, lineNo, 1, "second 'name:' line");
        }
        String name = line.substring(5).strip();
        if (name.isEmpty()) {
            throw new FormatException(source, lineNo, 6, "empty event name");
        }
        return name;
    }

    /** The event's id (0..65535) from its {@code ID:} line; {@code before} is the id of an earlier one (an error). */
    private static int idLine(String line, Integer before, String source, int lineNo) {
        if (before != null) {
            throw new FormatException(source, lineNo, 1, "second 'ID:' line");
        }
        int id = parseInt(line.substring(3).strip(), source, lineNo, 5, "ID");
        if (id < 0 || id > 0xffff) {
            throw new FormatException(source, lineNo, 5, "ID " + id + " outside 0..65535 (common_type is 16 bits)");
        }
        return id;
    }

    /**
     * Parses {@code events/header_page}: only field lines.
     *
     * @throws FormatException when a line is not a field line or timestamp/commit/data is missing
     */
    public static HeaderPage parseHeaderPage(String text, String source) {
        try {
            List<Field> fields = new ArrayList<>();
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                if (line.isBlank()) {
                    continue;
                }
                if (!line.strip().startsWith("field:")) {
                    throw new FormatException(source, i + 1, 1, "expected a field line: " + abbreviate(line.strip()));
                }
                fields.add(parseFieldLine(line, source, i + 1, false));
            }
            HeaderPage page = new HeaderPage(source, fields);
            page.timestamp();
            page.commit();
            page.data();
            return page;
        } catch (FormatException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new FormatException(source, 1, 1, "unexpected: " + e);
        }
    }

    /**
     * Parses {@code events/header_event}: the widths of {@code type_len} and {@code time_delta}
     * and the reserved {@code type_len} values.
     *
     * @throws FormatException when a value is missing or inconsistent
     */
    public static HeaderEvent parseHeaderEvent(String text, String source) {
        Integer typeLen = null;
        Integer timeDelta = null;
        Integer padding = null;
        Integer extend = null;
        Integer stamp = null;
        Integer max = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].strip();
            int lineNo = i + 1;
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            Matcher bits = BITS.matcher(t);
            Matcher type = TYPE.matcher(t);
            Matcher maxm = MAX.matcher(t);
            if (bits.matches()) {
                int v = Integer.parseInt(bits.group(2));
                switch (bits.group(1)) {
                    case "type_len" -> typeLen = v;
                    case "time_delta" -> timeDelta = v;
                    default -> { }
                }
            } else if (type.matches()) {
                int v = Integer.parseInt(type.group(2));
                switch (type.group(1)) {
                    case "padding" -> padding = v;
                    case "time_extend" -> extend = v;
                    case "time_stamp" -> stamp = v;
                    default -> { }
                }
            } else if (maxm.matches()) {
                max = Integer.parseInt(maxm.group(1));
            } else {
                throw new FormatException(source, lineNo, 1, "unexpected line: " + abbreviate(t));
            }
        }
        if (typeLen == null || timeDelta == null || padding == null || extend == null || stamp == null
                || max == null) {
            throw new FormatException(source, 1, 1, "header_event lacks type_len, time_delta, padding, "
                    + "time_extend, time_stamp or data max type_len");
        }
        if (typeLen + timeDelta != 32 || typeLen < 1 || typeLen > 8) {
            throw new FormatException(source, 1, 1, "type_len + time_delta must be 32 bits, got "
                    + typeLen + " + " + timeDelta);
        }
        int limit = (1 << typeLen) - 1;
        if (padding > limit || extend > limit || stamp > limit || max > limit) {
            throw new FormatException(source, 1, 1, "a reserved type_len does not fit in " + typeLen + " bits");
        }
        return new HeaderEvent(typeLen, timeDelta, padding, extend, stamp, max);
    }

    static Field parseFieldLine(String line, String source, int lineNo, boolean common) {
        int start = line.indexOf("field:");
        String[] parts = line.substring(start).split(";", -1);
        String decl = parts[0].substring("field:".length()).strip();
        Integer offset = null;
        Integer size = null;
        boolean signed = false;
        int col = start + parts[0].length() + 2; // 1-based column where parts[1] starts
        for (int p = 1; p < parts.length; p++) {
            String part = parts[p].strip();
            if (!part.isEmpty()) {
                int colon = part.indexOf(':');
                if (colon < 0) {
                    throw new FormatException(source, lineNo, col, "expected key:value, got " + abbreviate(part));
                }
                String key = part.substring(0, colon).strip();
                String value = part.substring(colon + 1).strip();
                int rawColon = parts[p].indexOf(':');
                int valueCol = col + rawColon + 1 + leadingWhitespace(parts[p], rawColon + 1);
                switch (key) {
                    case "offset" -> offset = parseInt(value, source, lineNo, valueCol, "offset");
                    case "size" -> size = parseInt(value, source, lineNo, valueCol, "size");
                    case "signed" -> signed = parseInt(value, source, lineNo, valueCol, "signed") != 0;
                    default -> throw new FormatException(source, lineNo, col, "unknown key '" + abbreviate(key) + "'");
                }
            }
            col += parts[p].length() + 1;
        }
        int declCol = start + "field:".length() + 1;
        if (offset == null || size == null) {
            throw new FormatException(source, lineNo, declCol, "field line lacks offset or size");
        }
        if (offset < 0 || size < 0 || offset > MAX_SIZE || size > MAX_SIZE) {
            throw new FormatException(source, lineNo, declCol, "offset " + offset + " or size " + size + " out of range");
        }
        return declaration(decl, offset, size, signed, common, source, lineNo, declCol);
    }

    private static Field declaration(String decl, int offset, int size, boolean signed, boolean common,
                                     String source, int lineNo, int col) {
        // most declarations end with their name ("unsigned long call_site"): found by a scan back over
        // the last word, as NAME_AND_ARRAY would find it; an array ("char comm[16]") takes the pattern
        int nameStart = trailingName(decl);
        Matcher m = nameStart >= 0 ? null : NAME_AND_ARRAY.matcher(decl);
        if (m != null && !m.find()) {
            throw new FormatException(source, lineNo, col, "no field name in declaration '" + abbreviate(decl) + "'");
        }
        String name = m == null ? decl.substring(nameStart) : m.group(1);
        String type = decl.substring(0, m == null ? nameStart : m.start()).strip();
        if (type.isEmpty()) {
            throw new FormatException(source, lineNo, col, "no type in declaration '" + abbreviate(decl) + "'");
        }
        int arrayLength = m == null || m.group(2) == null ? -1 : arrayLength(m, type, size, source, lineNo, col);
        boolean dataLoc = type.startsWith("__data_loc");
        boolean relLoc = type.startsWith("__rel_loc");
        FieldKind kind;
        if (dataLoc || relLoc) {
            kind = dynamicKind(type.substring(dataLoc ? "__data_loc".length() : "__rel_loc".length()).strip());
            if (size != 4) {
                throw new FormatException(source, lineNo, col, "a dynamic field's location word must be 4 bytes, got " + size);
            }
            return new Field(type, name, offset, size, signed, 0, kind, relLoc, common);
        }
        if (arrayLength >= 0) {
            String norm = CTypes.normalize(type);
            kind = norm.equals("char") || norm.equals("signed char") ? FieldKind.CHAR_ARRAY : FieldKind.ARRAY;
            if (arrayLength == 0 && size != 0) {
                arrayLength = size / Math.max(1, CTypes.sizeOf(type, 8));
            }
        } else if (type.contains("*")) {
            kind = FieldKind.POINTER;
        } else if (size == 1 || size == 2 || size == 4 || size == 8) {
            kind = FieldKind.INTEGER;
        } else {
            kind = FieldKind.OPAQUE;
        }
        if (common && kind != FieldKind.INTEGER) {
            // every reader takes the common fields (type, flags, preempt count, pid) as integers
            throw new FormatException(source, lineNo, col, "common field " + name
                    + " must be an integer of 1, 2, 4 or 8 bytes, got " + abbreviate(type) + " of size " + size);
        }
        return new Field(type, name, offset, size, signed, arrayLength, kind, false, common);
    }

    /**
     * Where the name starts in a declaration whose last character is a word character: the first
     * letter or underscore of its last run of {@code [A-Za-z0-9_]} (leading digits are not part of
     * a name), as {@link #NAME_AND_ARRAY} finds it; -1 when the declaration ends otherwise (an
     * array, nothing) or that run holds only digits, for the pattern to decide.
     */
    private static int trailingName(String decl) {
        int end = decl.length();
        int p = end;
        while (p > 0 && isWordChar(decl.charAt(p - 1))) {
            p--;
        }
        while (p < end && decl.charAt(p) >= '0' && decl.charAt(p) <= '9') {
            p++;
        }
        return p < end ? p : -1;
    }

    private static boolean isWordChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    /**
     * An array's length from its declaration's brackets ({@code m}'s group 3): empty is 0, a number
     * is itself, a constant the kernel did not expand is the size over the element's size.
     */
    private static int arrayLength(Matcher m, String type, int size, String source, int lineNo, int col) {
        String len = m.group(3).strip();
        if (len.isEmpty()) {
            return 0;
        }
        if (UNSIGNED.matcher(len).matches()) {
            return Integer.parseInt(len);
        }
        int elem = CTypes.sizeOf(type, 8);
        if (elem <= 0) {
            throw new FormatException(source, lineNo, col + m.start(3), "array length '" + abbreviate(len) + "' is not a number");
        }
        return size / elem;
    }

    /** The kind of a {@code __data_loc}/{@code __rel_loc} field of element type {@code element} ({@code char[]}, …). */
    private static FieldKind dynamicKind(String element) {
        if (element.endsWith("[]")) {
            element = element.substring(0, element.length() - 2).strip();
        }
        String norm = CTypes.normalize(element);
        if (norm.equals("char")) {
            return FieldKind.DYNAMIC_STRING;
        } else if (norm.equals("cpumask_t") || norm.equals("cpumask_t *")) {
            return FieldKind.DYNAMIC_CPUMASK;
        }
        return FieldKind.DYNAMIC_ARRAY;
    }

    private static int parseInt(String text, String source, int line, int col, String what) {
        if (!isInt(text)) {
            throw new FormatException(source, line, col, what + " '" + abbreviate(text) + "' is not a number");
        }
        return Integer.parseInt(text);
    }

    /** Whether {@code text} is {@code -?[0-9]{1,9}}, checked without a matcher (three on every field line). */
    private static boolean isInt(String text) {
        int from = text.startsWith("-") ? 1 : 0;
        int digits = text.length() - from;
        if (digits < 1 || digits > 9) {
            return false;
        }
        for (int i = from; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** The number of whitespace characters (as {@link String#stripLeading} counts them) at {@code from} in {@code s}. */
    private static int leadingWhitespace(String s, int from) {
        int i = from;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i - from;
    }

    private static String abbreviate(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", "?");
        return clean.length() > 60 ? clean.substring(0, 57) + "..." : clean;
    }
}
