package org.tracewire.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.fornwall.jelf.ElfFile;
import net.fornwall.jelf.ElfNoteSection;
import net.fornwall.jelf.ElfSection;
import net.fornwall.jelf.ElfSectionHeader;
import net.fornwall.jelf.ElfSegment;
import net.fornwall.jelf.ElfSymbol;
import net.fornwall.jelf.ElfSymbolTableSection;

/**
 * Resolves user-space code addresses of a live process to the functions of its mapped ELF files
 * ({@code docs/stacks.md}): the mapping that holds the address ({@code /proc/TGID/maps}), the file
 * offset it falls on, and the {@code STT_FUNC} symbol of the file's {@code .symtab} or {@code .dynsym}
 * (jelf; {@code STT_GNU_IFUNC} too) whose loadable-segment file range covers that offset, with the
 * file's GNU build id. The file is opened through
 * {@code /proc/TGID/map_files/START-END}, the kernel's link to the very file mapped there, never by
 * the path the process's maps show (a name the traced user controls). Parsed files are kept by
 * device and inode, maps per process (re-read when an address falls outside them, at most every
 * 100 ms). Not thread-safe: the capture's emitter thread calls it.
 */
final class UserSymbols {
    /** Most processes whose maps are kept; most files whose symbols are kept. */
    static final int MAX_PROCESSES = 4096;
    static final int MAX_FILES = 256;
    private static final long REREAD_NS = 100_000_000L;
    /** Largest file parsed (jelf reads it whole; a traced user may map any file executable). */
    static final long MAX_FILE_BYTES = 256L << 20;
    /** An indirect function ({@code memcpy} in libc): a function to name all the same. */
    private static final int STT_GNU_IFUNC = 10;

    /**
     * A function covering an address.
     *
     * @param name  the symbol's name
     * @param start its first address in the process
     * @param size  its size in bytes (at least 1)
     * @param file  the mapped file's path as the process's maps name it (for display only)
     * @param buildId the file's GNU build id (its {@code NT_GNU_BUILD_ID} note's bytes, as
     *              {@code readelf -n} prints them in hex), or null when it has none; not to be modified
     */
    record Symbol(String name, long start, long size, String file, byte[] buildId) {
    }

    private record Mapping(long start, long end, long pgoff, String devInode, String path) {
    }

    private static final class Maps {
        List<Mapping> list = List.of();
        long readAt;
    }

    /** A file's functions sorted by file offset, and its GNU build id (null: none). */
    private record FileSymbols(long[] offsets, long[] sizes, String[] names, byte[] buildId) {
    }

    private final Path proc;
    private final Map<Integer, Maps> maps = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Maps> e) {
            return size() > MAX_PROCESSES;
        }
    };
    private final Map<String, FileSymbols> files = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, FileSymbols> e) {
            return size() > MAX_FILES;
        }
    };

    /** @param proc the proc file system ({@code /proc}) */
    UserSymbols(Path proc) {
        this.proc = proc;
    }

    /**
     * The function covering {@code address} in process {@code tgid}, or null: the process is gone,
     * the address is in no file mapping (anonymous memory, JIT code), the file has no symbol there
     * (stripped), or it cannot be read.
     */
    Symbol lookup(int tgid, long address) {
        if (tgid <= 0) {
            return null;
        }
        Maps m = maps.computeIfAbsent(tgid, t -> new Maps());
        Mapping map = find(m.list, address);
        long now = System.nanoTime();
        if (map == null && (m.readAt == 0 || now - m.readAt > REREAD_NS)) {
            m.list = readMaps(tgid);
            m.readAt = now;
            map = find(m.list, address);
        }
        if (map == null) {
            return null;
        }
        FileSymbols fs = files.get(map.devInode);
        if (fs == null) {
            fs = load(proc.resolve(Integer.toString(tgid)).resolve("map_files")
                    .resolve(Long.toHexString(map.start) + "-" + Long.toHexString(map.end)));
            files.put(map.devInode, fs);
        }
        long off = address - map.start + map.pgoff;
        int i = floor(fs.offsets, off);
        if (i < 0 || off - fs.offsets[i] >= fs.sizes[i]) {
            return null;
        }
        return new Symbol(fs.names[i], address - (off - fs.offsets[i]), fs.sizes[i], map.path, fs.buildId);
    }

    private static Mapping find(List<Mapping> list, long address) {
        for (Mapping m : list) {
            if (Long.compareUnsigned(address, m.start) >= 0 && Long.compareUnsigned(address, m.end) < 0) {
                return m;
            }
        }
        return null;
    }

    /** The file mappings of a process ({@code START-END PERMS PGOFF DEV INODE PATH}), empty when it is gone. */
    private List<Mapping> readMaps(int tgid) {
        List<Mapping> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(proc.resolve(Integer.toString(tgid)).resolve("maps"), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return out;
        }
        for (String l : lines) {
            String[] f = l.split("\\s+", 6);
            if (f.length < 6 || !f[5].startsWith("/") || f[4].equals("0") || f[1].indexOf('x') < 0) {
                continue; // anonymous, special ([stack], [vdso]) or not executable
            }
            try {
                int dash = f[0].indexOf('-');
                out.add(new Mapping(Long.parseUnsignedLong(f[0].substring(0, dash), 16),
                        Long.parseUnsignedLong(f[0].substring(dash + 1), 16), Long.parseUnsignedLong(f[2], 16),
                        f[3] + ":" + f[4], f[5].strip()));
            } catch (RuntimeException e) {
                // a line of another shape: skipped
            }
        }
        return out;
    }

    /** The functions of the ELF file at {@code file} by file offset; none when it cannot be read. */
    static FileSymbols load(Path file) {
        ElfFile elf;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new IOException("larger than " + MAX_FILE_BYTES + " bytes");
            }
            elf = ElfFile.from(file.toFile());
        } catch (IOException | RuntimeException e) {
            return new FileSymbols(new long[0], new long[0], new String[0], null);
        }
        List<ElfSegment> loads = new ArrayList<>();
        for (int i = 0; i < elf.e_phnum; i++) {
            ElfSegment s = elf.getProgramHeader(i);
            if (s.p_type == ElfSegment.PT_LOAD) {
                loads.add(s);
            }
        }
        Map<Long, long[]> byOffset = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        for (boolean dynamic : new boolean[] {false, true}) {
            ElfSymbolTableSection table;
            try {
                table = dynamic ? elf.getDynamicSymbolTableSection() : elf.getSymbolTableSection();
            } catch (RuntimeException e) {
                continue;
            }
            if (table == null) {
                continue;
            }
            for (ElfSymbol s : table.symbols) {
                if (s.st_value == 0 || s.st_shndx == 0 || (s.getType() != ElfSymbol.STT_FUNC && s.getType() != STT_GNU_IFUNC)) {
                    continue;
                }
                for (ElfSegment seg : loads) {
                    if (s.st_value >= seg.p_vaddr && s.st_value < seg.p_vaddr + seg.p_filesz) {
                        long off = s.st_value - seg.p_vaddr + seg.p_offset;
                        try {
                            String name = s.getName();
                            if (name != null && !name.isEmpty() && !names.containsKey(off)) {
                                names.put(off, name);
                                byOffset.put(off, new long[] {off, Math.max(1, s.st_size)});
                            }
                        } catch (RuntimeException e) {
                            // a name that cannot be read: skipped
                        }
                        break;
                    }
                }
            }
        }
        long[] offsets = byOffset.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        long[] sizes = new long[offsets.length];
        String[] n = new String[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            sizes[i] = byOffset.get(offsets[i])[1];
            n[i] = names.get(offsets[i]);
        }
        return new FileSymbols(offsets, sizes, n, buildId(elf));
    }

    /**
     * The file's GNU build id: the descriptor of its {@code NT_GNU_BUILD_ID} note (owner "GNU", in a
     * {@code SHT_NOTE} section, normally {@code .note.gnu.build-id}; 20 bytes from {@code ld
     * --build-id=sha1}), or null when it has none or the notes cannot be read.
     */
    static byte[] buildId(ElfFile elf) {
        try {
            for (ElfSection s : elf.sectionsOfType(ElfSectionHeader.SHT_NOTE)) {
                if (s instanceof ElfNoteSection n && n.n_type == ElfNoteSection.NT_GNU_BUILD_ID
                        && "GNU".equals(n.getName())) {
                    byte[] id = n.descriptorBytes();
                    return id.length == 0 || id.length > 255 ? null : id.clone();
                }
            }
        } catch (RuntimeException e) {
            // notes that cannot be read: no build id
        }
        return null;
    }

    /** The index of the largest value ≤ {@code v} in a sorted array, or -1. */
    private static int floor(long[] sorted, long v) {
        int i = Arrays.binarySearch(sorted, v);
        return i >= 0 ? i : -i - 2;
    }
}
