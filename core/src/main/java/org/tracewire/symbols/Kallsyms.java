package org.tracewire.symbols;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The kernel's symbol table as {@code /proc/kallsyms} lists it ({@code ADDR TYPE NAME [\tMODULE]}),
 * sorted by address for binary search. A symbol's size is the distance to the next higher
 * address in the table (as {@code kallsyms_lookup_size_offset()} computes it for the core kernel);
 * the last symbol gets size 1. Among aliases (same address) the first listed wins, as in the
 * kernel's {@code get_symbol_pos()}. Addresses of 0 (what non-root readers see) are dropped.
 * Immutable and thread-safe.
 */
public final class Kallsyms implements SymbolResolver {
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private final long[] starts;      // sorted, unsigned order
    private final String[] names;
    private final String[] modules;
    private final long[] sizes;

    /**
     * A table from in-memory entries (for tests): each {@code Symbol}'s start, name and module are
     * used; sizes are recomputed from neighbours unless the entry's size is positive.
     */
    public Kallsyms(List<Symbol> symbols) {
        List<Symbol> list = new ArrayList<>(symbols);
        list.removeIf(s -> s.start() == 0);
        // stable sort keeps the first-listed alias first
        list.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        List<Symbol> dedup = new ArrayList<>();
        for (Symbol s : list) {
            if (!dedup.isEmpty() && dedup.get(dedup.size() - 1).start() == s.start()) {
                continue;
            }
            dedup.add(s);
        }
        int n = dedup.size();
        starts = new long[n];
        names = new String[n];
        modules = new String[n];
        sizes = new long[n];
        for (int i = 0; i < n; i++) {
            Symbol s = dedup.get(i);
            starts[i] = s.start();
            names[i] = s.name();
            modules[i] = s.module();
            if (s.size() > 0) {
                sizes[i] = s.size();
            } else if (i + 1 < n) {
                sizes[i] = dedup.get(i + 1).start() - s.start();
            } else {
                sizes[i] = 1;
            }
        }
    }

    /**
     * Reads {@code /proc/kallsyms} (or a copy of it).
     *
     * @throws IOException when the file cannot be read
     */
    public static Kallsyms load(Path procKallsyms) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(procKallsyms, StandardCharsets.ISO_8859_1)) {
            return parse(r);
        }
    }

    /** Parses kallsyms text; malformed lines are skipped. */
    public static Kallsyms parse(String text) {
        try {
            return parse(new StringReader(text));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Kallsyms parse(Reader reader) throws IOException {
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<Symbol> list = new ArrayList<>();
        String line;
        while ((line = r.readLine()) != null) {
            String[] parts = WHITESPACE.split(line); // String.split would compile the pattern per line
            if (parts.length < 3) {
                continue;
            }
            long addr;
            try {
                addr = Long.parseUnsignedLong(parts[0], 16);
            } catch (NumberFormatException e) {
                continue;
            }
            String module = null;
            if (parts.length >= 4 && parts[3].startsWith("[") && parts[3].endsWith("]")) {
                module = parts[3].substring(1, parts[3].length() - 1);
            }
            list.add(new Symbol(parts[2], addr, 0, module));
        }
        return new Kallsyms(list);
    }

    /** Number of distinct addresses in the table. */
    public int size() {
        return starts.length;
    }

    @Override
    public Symbol lookup(long address) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            return null;
        }
        if (Long.compareUnsigned(address - starts[found], sizes[found]) >= 0) {
            return null;
        }
        return new Symbol(names[found], starts[found], sizes[found], modules[found]);
    }

    @Override
    public String toString() {
        return "Kallsyms[" + starts.length + " symbols" + (starts.length > 0 ? ", first " + names[0] : "") + "]"
                + (Arrays.stream(modules).anyMatch(m -> m != null) ? " with modules" : "");
    }
}
