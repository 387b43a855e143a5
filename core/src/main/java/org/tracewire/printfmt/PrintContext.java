package org.tracewire.printfmt;

import org.tracewire.symbols.SymbolResolver;

/**
 * What rendering needs beyond the record: the traced kernel's symbols (for {@code %pS} and
 * friends), its {@code printk_formats} strings (for {@code %s} of {@code const char *} fields) and
 * its {@code HZ} (for {@code jiffies_to_msecs}).
 *
 * @param symbols       symbol table, or null when unknown (then symbol conversions of non-zero
 *                      addresses make the record fall back)
 * @param printkFormats printk_formats strings; null means none
 * @param hz            the kernel's {@code CONFIG_HZ}; 0 or less when unknown (then
 *                      {@code jiffies_to_msecs} makes the record fall back)
 */
public record PrintContext(SymbolResolver symbols, PrintkFormats printkFormats, int hz) {

    public PrintContext {
        if (printkFormats == null) {
            printkFormats = PrintkFormats.empty();
        }
    }

    /** No symbols, no printk strings, HZ unknown. */
    public static PrintContext empty() {
        return new PrintContext(null, PrintkFormats.empty(), 0);
    }
}
