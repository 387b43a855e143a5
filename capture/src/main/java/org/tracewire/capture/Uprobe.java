package org.tracewire.capture;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.fornwall.jelf.ElfFile;
import net.fornwall.jelf.ElfSegment;
import net.fornwall.jelf.ElfSymbol;
import net.fornwall.jelf.ElfSymbolTableSection;

/**
 * One user-space probe as a capture asks for it: {@code PATH:SYMBOL[+OFFSET][%return] [FETCHARGS]}
 * (as perf-probe(1) and bpftrace's {@code uprobe:PATH:SYMBOL} name them; {@code PATH} without a
 * {@code /} is looked up in {@code $PATH}), resolved to the line the kernel's
 * {@code uprobe_events} takes ({@code Documentation/trace/uprobetracer.rst}):
 * {@code p|r:GROUP/EVENT PATH:0xFILEOFFSET FETCHARGS}. The symbol's file offset comes from the
 * ELF file's {@code .symtab}, else {@code .dynsym}: its address mapped through the {@code PT_LOAD}
 * segment that holds it.
 *
 * @param path      the binary's absolute path
 * @param symbol    the function's name
 * @param offset    bytes past the symbol's start (0 for its entry)
 * @param isReturn  a return probe ({@code %return}): fires when the function returns
 * @param fetchArgs the kernel's fetch arguments, as given (e.g. {@code line=+0($retval):string}),
 *                  or empty
 * @param fileOffset the probe's offset in the file
 */
public record Uprobe(Path path, String symbol, long offset, boolean isReturn, String fetchArgs, long fileOffset) {
    private static final Pattern SPEC = Pattern.compile("([^:\\s]+):([A-Za-z_][\\w.@]*)(?:\\+(0x[0-9a-fA-F]+|\\d+))?"
            + "(%return)?(?:\\s+(.*))?", Pattern.DOTALL);

    public Uprobe {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(symbol, "symbol");
        fetchArgs = fetchArgs == null ? "" : fetchArgs.strip();
    }

    /**
     * Parses and resolves a probe specification.
     *
     * @param spec the specification, e.g. {@code bash:readline%return line=+0($retval):string}
     * @param pathVariable the {@code PATH} to look a bare program name up in
     * @return the probe with its file offset
     * @throws IllegalArgumentException naming what is wrong: the syntax (with the position), no
     *         such file, not an ELF file, no such symbol (stripped binary), a symbol outside every
     *         loadable segment, or fetch arguments with line breaks
     */
    public static Uprobe parse(String spec, String pathVariable) {
        Matcher m = SPEC.matcher(spec == null ? "" : spec.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("--uprobe '" + spec + "' is not PATH:SYMBOL[+OFFSET][%return] [FETCHARGS]"
                    + " (e.g. bash:readline%return 'line=+0($retval):string')");
        }
        String args = m.group(5) == null ? "" : m.group(5);
        if (args.chars().anyMatch(c -> c == '\n' || c == '\r' || c == 0)) {
            throw new IllegalArgumentException("--uprobe: fetch arguments cannot hold line breaks");
        }
        Path file = locate(m.group(1), pathVariable);
        long off = m.group(3) == null ? 0 : Long.decode(m.group(3));
        long fileOffset = fileOffset(file, m.group(2)) + off;
        return new Uprobe(file, m.group(2), off, m.group(4) != null, args, fileOffset);
    }

    /** A program name found in {@code $PATH} (as the shell would), or the path given. */
    static Path locate(String name, String pathVariable) {
        if (name.contains("/")) {
            Path p = Path.of(name).toAbsolutePath().normalize();
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException("--uprobe: no such file " + p);
            }
            return p;
        }
        for (String dir : (pathVariable == null ? "" : pathVariable).split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                try {
                    return p.toRealPath();
                } catch (IOException e) {
                    return p.toAbsolutePath();
                }
            }
        }
        throw new IllegalArgumentException("--uprobe: no program '" + name + "' in $PATH");
    }

    /**
     * The file offset of a symbol: its value, mapped from the virtual address of the PT_LOAD
     * segment that holds it to that segment's place in the file.
     *
     * @throws IllegalArgumentException when the file is no ELF file, has no such symbol, or the
     *         symbol lies outside every loadable segment
     */
    static long fileOffset(Path file, String symbol) {
        ElfFile elf;
        try {
            elf = ElfFile.from(file.toFile());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("--uprobe: " + file + " is not an ELF file we can read: " + e.getMessage());
        }
        ElfSymbol sym = find(elf, symbol);
        if (sym == null) {
            throw new IllegalArgumentException("--uprobe: no function '" + symbol + "' in " + file
                    + " (neither .symtab nor .dynsym names it: a stripped binary, or another name)");
        }
        for (int i = 0; i < elf.e_phnum; i++) {
            ElfSegment s = elf.getProgramHeader(i);
            if (s.p_type == ElfSegment.PT_LOAD && sym.st_value >= s.p_vaddr && sym.st_value < s.p_vaddr + s.p_filesz) {
                return sym.st_value - s.p_vaddr + s.p_offset;
            }
        }
        throw new IllegalArgumentException("--uprobe: '" + symbol + "' in " + file + " lies outside every loadable "
                + "segment (address 0x" + Long.toHexString(sym.st_value) + ")");
    }

    private static ElfSymbol find(ElfFile elf, String symbol) {
        for (ElfSymbolTableSection table : new ElfSymbolTableSection[] {symtab(elf, false), symtab(elf, true)}) {
            if (table == null) {
                continue;
            }
            for (ElfSymbol s : table.symbols) {
                try {
                    if (s.st_value != 0 && s.st_shndx != 0 && symbol.equals(s.getName())) {
                        return s;
                    }
                } catch (RuntimeException e) {
                    // a symbol whose name cannot be read is not the one asked for
                }
            }
        }
        return null;
    }

    private static ElfSymbolTableSection symtab(ElfFile elf, boolean dynamic) {
        try {
            return dynamic ? elf.getDynamicSymbolTableSection() : elf.getSymbolTableSection();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The event's name: the symbol (characters other than letters, digits and {@code _} as
     * {@code _}), with {@code __return} for a return probe, as perf-probe names them.
     */
    public String eventName() {
        String base = symbol.replaceAll("[^A-Za-z0-9_]", "_") + (offset == 0 ? "" : "_" + offset);
        return isReturn ? base + "__return" : base;
    }

    /** The line for {@code uprobe_events} that defines this probe in {@code group}. */
    public String definition(String group) {
        return (isReturn ? "r:" : "p:") + group + "/" + eventName() + " " + path + ":0x"
                + Long.toHexString(fileOffset).toLowerCase(Locale.ROOT) + (fetchArgs.isEmpty() ? "" : " " + fetchArgs);
    }
}
