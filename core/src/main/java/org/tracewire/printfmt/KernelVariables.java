package org.tracewire.printfmt;

import java.util.Map;

/**
 * Kernel variables and type sizes that some print fmts use and that no file exports, e.g.
 * {@code vmemmap_base} and {@code sizeof(struct page)} in
 * {@code page=%p ... (((struct page *)vmemmap_base) + (REC->pfn))} of {@code kmem:mm_page_*}.
 * They are learned by calibration against the kernel's own text
 * ({@link org.tracewire.tracetext.KernelContext}); what is not known here makes the record fall
 * back, never a guess.
 *
 * @param values    variable name → value (bit pattern of an unsigned long)
 * @param typeSizes type name as normalised by {@link org.tracewire.format.CTypes#normalize}
 *                  (e.g. {@code "page"} for {@code struct page}) → size in bytes
 */
public record KernelVariables(Map<String, Long> values, Map<String, Integer> typeSizes) {
    public KernelVariables {
        values = Map.copyOf(values);
        typeSizes = Map.copyOf(typeSizes);
    }

    /** Nothing known. */
    public static KernelVariables empty() {
        return new KernelVariables(Map.of(), Map.of());
    }

    /** A variable's value, or null. */
    public Long value(String name) {
        return values.get(name);
    }

    /** A type's size in bytes, or -1 when unknown. */
    public int sizeOf(String normalizedType) {
        return typeSizes.getOrDefault(normalizedType, -1);
    }
}
