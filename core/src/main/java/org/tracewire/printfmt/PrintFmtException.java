package org.tracewire.printfmt;

/**
 * A {@code print fmt} that cannot be parsed. The message names the event and the 1-based column
 * in the print fmt text (the text after {@code print fmt: }) where the problem was found.
 */
public class PrintFmtException extends RuntimeException {
    private final String event;
    private final int column;

    /**
     * @param event  the event's full name ({@code system:name}), or a placeholder when unknown
     * @param column 1-based column in the print fmt text
     * @param detail what is wrong
     */
    public PrintFmtException(String event, int column, String detail) {
        super(event + ": print fmt col " + column + ": " + detail);
        this.event = event;
        this.column = column;
    }

    /** The event's full name ({@code system:name}). */
    public String event() {
        return event;
    }

    /** 1-based column in the print fmt text. */
    public int column() {
        return column;
    }
}
