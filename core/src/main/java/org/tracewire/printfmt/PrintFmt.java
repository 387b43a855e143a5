package org.tracewire.printfmt;

import java.util.List;

/**
 * A parsed {@code print fmt}: the format string (its literals joined and unescaped), split into
 * segments, and the argument expressions. Immutable.
 *
 * @param event    the event's full name ({@code system:name}) for messages
 * @param format   the unescaped format string
 * @param segments the format split into literal text and conversions
 * @param args     the argument expressions, in order; each conversion consumes
 *                 {@link FormatSegment.Conversion#argumentCount()} of them
 */
public record PrintFmt(String event, String format, List<FormatSegment> segments, List<Expr> args) {
    public PrintFmt {
        segments = List.copyOf(segments);
        args = List.copyOf(args);
    }
}
