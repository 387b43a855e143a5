package org.tracewire.tracetext;

import java.util.HashMap;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.UserSymbolResolver;

/**
 * Renders records into the lines the kernel's text {@code trace} file shows for them (default
 * options, {@code nohash-ptr}): {@link TraceLinePrefix} columns, then the event name and its
 * print fmt evaluated ({@link EventPrinter}), or for syscall events the kernel's own syscall text
 * ({@link SyscallText}), for stack trace records the kernel's {@code <stack trace>} lines
 * ({@link StackText}). Keeps one compiled printer per event id. Not thread-safe.
 */
public final class KernelTextRenderer {
    private final TraceLinePrefix prefix;
    private final KernelLayout layout;
    private final PrintContext context;
    private final Map<Integer, EventPrinter> printers = new HashMap<>();
    /** Per event id: a dynamic probe's, whose head the kernel writes itself ({@link ProbeText}). */
    private final Map<Integer, Boolean> probes = new HashMap<>();
    private UserSymbolResolver users = UserSymbolResolver.none();

    /**
     * @param prefix  the context columns (task names from {@code saved_cmdlines}, the clock)
     * @param layout  byte order and long size of the traced kernel
     * @param context symbols, printk formats and HZ for the print fmts
     */
    public KernelTextRenderer(TraceLinePrefix prefix, KernelLayout layout, PrintContext context) {
        this.prefix = prefix;
        this.layout = layout;
        this.context = context;
    }

    /**
     * Resolves user stack addresses with {@code users} (a capture's SYMBOLS items 4), named after the
     * kernel's text of a user stack ({@link StackText}).
     *
     * @return this renderer
     */
    public KernelTextRenderer userSymbols(UserSymbolResolver users) {
        this.users = users == null ? UserSymbolResolver.none() : users;
        return this;
    }

    /** The task name of a pid as the lines show it ({@link TraceLinePrefix#comm}). */
    public String comm(int pid) {
        return prefix.comm(pid);
    }

    /** The printer of an event, compiled on first use. */
    public EventPrinter printer(EventFormat format) {
        return printers.computeIfAbsent(format.id(), id -> EventPrinter.compile(format, layout));
    }

    /** The event's text after the context columns: {@code "NAME: body"}, or the syscall text. */
    public String body(EventRecord record) {
        StringBuilder sb = new StringBuilder(128);
        appendBody(sb, record);
        return sb.toString();
    }

    /** The whole line, as the kernel writes it (without the newline). */
    public String line(EventRecord record) {
        StringBuilder sb = new StringBuilder(192);
        prefix.appendContext(sb, record);
        appendBody(sb, record);
        return sb.toString();
    }

    private void appendBody(StringBuilder sb, EventRecord record) {
        EventFormat f = record.format();
        if (SyscallText.handles(f)) {
            try {
                SyscallText.append(sb, record);
                return;
            } catch (RuntimeException e) {
                // a record too short for its syscall fields: fall through to the print fmt path
            }
        }
        if (StackText.kind(f) != null) {
            StackText.append(sb, record, context.symbols(), users);
            return;
        }
        String text = printer(f).render(record, context);
        boolean probe = probes.computeIfAbsent(f.id(), id -> ProbeText.handles(f));
        sb.append(f.name()).append(": ").append(probe ? ProbeText.kernelHead(text, record) : text);
    }
}
