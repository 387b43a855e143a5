package org.tracewire.symbols;

/**
 * Maps kernel addresses to symbols, as {@code kallsyms_lookup()} does for the kernel's
 * {@code %pS}/{@code %ps}/{@code %pB} printk extensions ({@code lib/vsprintf.c}, {@code kernel/kallsyms.c}).
 */
public interface SymbolResolver {

    /**
     * A symbol that covers an address.
     *
     * @param name   the symbol name, e.g. {@code do_sys_openat2}
     * @param start  the symbol's first address
     * @param size   its size in bytes (distance to the next symbol), at least 1
     * @param module the module name for module symbols (printed as {@code [module]}), null for the core kernel
     */
    record Symbol(String name, long start, long size, String module) {
    }

    /**
     * The symbol covering {@code address} (unsigned comparison), or null when none does.
     */
    Symbol lookup(long address);

    /** A resolver that knows no symbol. */
    static SymbolResolver none() {
        return address -> null;
    }
}
