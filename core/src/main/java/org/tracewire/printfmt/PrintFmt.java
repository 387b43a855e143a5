package org.tracewire.printfmt;

import java.util.List;
import java.util.Set;

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

    /** Kernel variables whose value the kernel reads when it prints, not when it records. */
    public static final Set<String> PRINT_TIME_VARIABLES = Set.of("jiffies");

    /**
     * True when an argument reads kernel state at print time (e.g. {@code jiffies - REC->dirtied_when}
     * in {@code writeback:writeback_single_inode}): the kernel's text then depends on when it was
     * read, so no decoder of the record can reproduce it.
     */
    public boolean readsPrintTimeState() {
        for (Expr e : args) {
            if (mentions(e)) {
                return true;
            }
        }
        return false;
    }

    private static boolean mentions(Expr e) {
        if (e instanceof Expr.Ident id) {
            return PRINT_TIME_VARIABLES.contains(id.name());
        }
        if (e instanceof Expr.Binary b) {
            return mentions(b.left()) || mentions(b.right());
        }
        if (e instanceof Expr.Unary u) {
            return mentions(u.operand());
        }
        if (e instanceof Expr.Ternary t) {
            return mentions(t.cond()) || mentions(t.then()) || mentions(t.otherwise());
        }
        if (e instanceof Expr.Cast c) {
            return mentions(c.operand());
        }
        if (e instanceof Expr.Index ix) {
            return mentions(ix.base()) || mentions(ix.index());
        }
        if (e instanceof Expr.Member m) {
            return mentions(m.base());
        }
        if (e instanceof Expr.SizeofExpr se) {
            return false;
        }
        if (e instanceof Expr.Call call) {
            return call.args().stream().anyMatch(PrintFmt::mentions);
        }
        if (e instanceof Expr.Braced br) {
            return br.items().stream().anyMatch(PrintFmt::mentions);
        }
        return false;
    }
}
