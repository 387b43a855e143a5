package org.tracewire.symbols;

/**
 * Maps user-space code addresses of a process to the functions of its mapped files, as a capture
 * resolved them while the process ran (SYMBOLS items 4, {@code docs/wire-format.md} §4.3), and the
 * build ids of those files (items 6).
 */
@FunctionalInterface
public interface UserSymbolResolver {
    /**
     * The function covering {@code address} in process {@code tgid}, or null when none is known.
     * Its {@link SymbolResolver.Symbol#module()} is the mapped file's path.
     */
    SymbolResolver.Symbol lookup(int tgid, long address);

    /**
     * The GNU build id of the file process {@code tgid} mapped under the name {@code file} (a
     * symbol's {@link SymbolResolver.Symbol#module()}), as lowercase hex ({@code readelf -n}'s
     * {@code Build ID}), or null when none is known (SYMBOLS items 6).
     */
    default String buildId(int tgid, String file) {
        return null;
    }

    /** A resolver that knows nothing. */
    static UserSymbolResolver none() {
        return (tgid, address) -> null;
    }
}
