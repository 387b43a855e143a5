package org.tracewire.format;

/**
 * A tracefs {@code format} file (or {@code header_page}, {@code header_event}) that does not
 * follow the kernel's layout. Carries where: the source (a path or a label), 1-based line and
 * column.
 */
public class FormatException extends RuntimeException {
    private final String source;
    private final int line;
    private final int column;

    /**
     * @param source what was parsed (a path such as {@code events/sched/sched_switch/format})
     * @param line   1-based line of the problem
     * @param column 1-based column of the problem
     * @param detail what is wrong
     */
    public FormatException(String source, int line, int column, String detail) {
        super(source + ":" + line + ":" + column + ": " + detail);
        this.source = source;
        this.line = line;
        this.column = column;
    }

    /** The parsed file's path or label. */
    public String source() {
        return source;
    }

    /** 1-based line number. */
    public int line() {
        return line;
    }

    /** 1-based column number. */
    public int column() {
        return column;
    }
}
