package org.tracewire.symbols;

/**
 * Maps user-space code addresses of a process to the functions of its mapped files, as a capture
 * resolved them while the process ran (SYMBOLS items 4, {@code docs/wire-format.md} §4.3).
 */
@FunctionalInterface
public interface UserSymbolResolver {
    /**
     * The function covering {@code address} in process {@code tgid}, or null when none is known.
     * Its {@link SymbolResolver.Symbol#module()} is the mapped file's path.
     */
    SymbolResolver.Symbol lookup(int tgid, long address);

    /** A resolver that knows nothing. */
    static UserSymbolResolver none() {
        return (tgid, address) -> null;
    }
}
