package org.tracewire.printfmt;

/**
 * The outcome of rendering one record.
 *
 * @param text     the rendered text (kernel {@code trace} text after {@code event_name: }, or the
 *                 name=value fallback)
 * @param fallback true when {@code text} is the name=value fallback
 * @param reason   why it fell back (compile-time or evaluation error); null when not a fallback
 */
public record RenderResult(String text, boolean fallback, String reason) {
}
