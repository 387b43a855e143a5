package org.tracewire.filter;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.tracewire.format.EventFormat;

/**
 * One filter in its three places.
 *
 * @param kernel   text for {@code events/<system>/<event>/filter} ({@link KernelFilterCompiler}); exact
 * @param display  Wireshark display filter ({@link DisplayFilterCompiler}); may be wider than the
 *                 kernel's when it had to drop conditions (see warnings)
 * @param bpf      libpcap capture filter ({@link BpfFilterCompiler}); never narrower than the kernel's
 * @param bpfExact true when the capture filter dropped no condition
 * @param warnings every dropped condition, prefixed with the form it was dropped from
 *                 ({@code "display filter: "}, {@code "capture filter: "})
 */
public record CompiledFilter(String kernel, String display, String bpf, boolean bpfExact, List<String> warnings) {
    public CompiledFilter {
        warnings = List.copyOf(warnings);
    }

    /**
     * Validates and compiles.
     *
     * @param filter    the filter
     * @param format    its event
     * @param byteOrder the traced kernel's byte order (for the capture filter's TLV values)
     * @throws FilterSyntaxException when the filter does not fit the event
     */
    public static CompiledFilter compile(Filter filter, EventFormat format, ByteOrder byteOrder) {
        String kernel = KernelFilterCompiler.compile(filter, format);
        DisplayFilterCompiler.Result display = DisplayFilterCompiler.compile(filter, format);
        BpfFilterCompiler.Result bpf = BpfFilterCompiler.compile(filter, format, byteOrder);
        List<String> warnings = new ArrayList<>(display.warnings());
        warnings.addAll(bpf.warnings());
        return new CompiledFilter(kernel, display.filter(), bpf.filter(), bpf.exact(), warnings);
    }

    /**
     * Parses, validates and compiles filter text.
     *
     * @throws FilterSyntaxException with the position in {@code text} of the first problem
     */
    public static CompiledFilter compile(String text, EventFormat format, ByteOrder byteOrder) {
        return compile(Filter.parse(text), format, byteOrder);
    }
}
