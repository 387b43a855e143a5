package org.tracewire.printfmt;

import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;

/**
 * What rendering needs beyond the record: the traced kernel's symbols (for {@code %pS} and
 * friends), its {@code printk_formats} strings (for {@code %s} of {@code const char *} fields) and
 * its {@code HZ} (for {@code jiffies_to_msecs}) and, optionally, its enum constants (for print fmts
 * that name enum constants the kernel left unresolved).
 *
 * @param symbols       symbol table, or null when unknown (then symbol conversions of non-zero
 *                      addresses make the record fall back)
 * @param printkFormats printk_formats strings; null means none
 * @param hz            the kernel's {@code CONFIG_HZ}; 0 or less when unknown (then
 *                      {@code jiffies_to_msecs} makes the record fall back)
 * @param enums         enum constants of the traced kernel (from its BTF, {@link KernelEnums#load});
 *                      null means none. Names not found here fall back to a small built-in table of
 *                      ABI-stable constants, then make the record fall back when needed.
 * @param variables     kernel variables and type sizes learned by calibration ({@link KernelVariables});
 *                      null means none
 */
public record PrintContext(SymbolResolver symbols, PrintkFormats printkFormats, int hz, KernelEnums enums,
                           KernelVariables variables) {

    public PrintContext {
        if (printkFormats == null) {
            printkFormats = PrintkFormats.empty();
        }
        if (enums == null) {
            enums = KernelEnums.empty();
        }
        if (variables == null) {
            variables = KernelVariables.empty();
        }
    }

    /** A context without calibrated kernel variables. */
    public PrintContext(SymbolResolver symbols, PrintkFormats printkFormats, int hz, KernelEnums enums) {
        this(symbols, printkFormats, hz, enums, null);
    }

    /** A context without enum constants. */
    public PrintContext(SymbolResolver symbols, PrintkFormats printkFormats, int hz) {
        this(symbols, printkFormats, hz, null);
    }

    /** This context with the given enum constants. */
    public PrintContext withEnums(KernelEnums kernelEnums) {
        return new PrintContext(symbols, printkFormats, hz, kernelEnums, variables);
    }

    /** This context with the given kernel variables. */
    public PrintContext withVariables(KernelVariables kernelVariables) {
        return new PrintContext(symbols, printkFormats, hz, enums, kernelVariables);
    }

    /** No symbols, no printk strings, HZ unknown. */
    public static PrintContext empty() {
        return new PrintContext(null, PrintkFormats.empty(), 0, null);
    }
}
