package org.tracewire.filter;

import java.nio.charset.StandardCharsets;
import org.tracewire.format.EventFormat;

/**
 * Compiles a {@link Filter} to the text written to {@code events/<system>/<event>/filter}.
 *
 * <p>The text is the canonical form ({@link Filter#toText()}) with each {@code ~} pattern passed
 * through {@link Glob#forKernel}, so that the kernel matches it as {@code glob_match()} would
 * (Linux 6.18 takes {@code "1*"} as a function index and {@code "*x"} on a {@code char[N]} field
 * as a comparison of the array's last bytes). Strings are quoted with {@code "} or, when they hold
 * a {@code "}, with {@code '}: the kernel's parser has no escapes, so a value holding both quotes,
 * a line break or NUL cannot be expressed and is refused.
 */
public final class KernelFilterCompiler {
    /** The kernel refuses filter writes of a page or more ({@code PAGE_SIZE} 4096 on x86). */
    public static final int MAX_BYTES = 4095;

    private KernelFilterCompiler() {
    }

    /**
     * @param filter the filter
     * @param format the event it is for
     * @return the text for the event's {@code filter} file (without a trailing newline)
     * @throws FilterSyntaxException when the filter does not fit the event ({@link FilterValidator})
     *                               or the text exceeds {@value #MAX_BYTES} bytes
     */
    public static String compile(Filter filter, EventFormat format) {
        FilterValidator.check(filter, format);
        String text = FilterPrinter.printForKernel(filter);
        int bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new FilterSyntaxException(0, "the kernel filter would be " + bytes + " bytes; the kernel takes at most " + MAX_BYTES);
        }
        return text;
    }
}
