package org.tracewire.cli;

import java.util.Objects;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.EventPrinter;

/**
 * Whether an event's {@code print fmt} compiles to tracewire's own printer or falls back (to
 * printing the raw fields). The one place in the app that calls the print-fmt compiler,
 * {@code org.tracewire.printfmt.EventPrinter.compile(EventFormat, KernelLayout)}.
 *
 * @param fallback true when the print fmt could not be compiled
 * @param reason   why it fell back; empty when {@code fallback} is false
 */
public record PrintFmtStatus(boolean fallback, String reason) {
    public PrintFmtStatus {
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * Compiles one event's print fmt and reports the outcome. Never throws: an exception from the
     * compiler counts as a fallback whose reason names the exception.
     *
     * @param format the parsed format
     * @param layout the traced kernel's byte order and long size
     */
    public static PrintFmtStatus of(EventFormat format, KernelLayout layout) {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(layout, "layout");
        try {
            EventPrinter p = EventPrinter.compile(format, layout);
            return p.isFallback() ? new PrintFmtStatus(true, p.fallbackReason()) : new PrintFmtStatus(false, "");
        } catch (RuntimeException e) {
            return new PrintFmtStatus(true, "compiler threw " + e);
        }
    }
}
