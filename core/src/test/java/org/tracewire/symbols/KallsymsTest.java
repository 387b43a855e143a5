package org.tracewire.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/** Parsing and lookup of {@code /proc/kallsyms} text. */
class KallsymsTest {

    static final String TEXT = """
            0000000000000000 A fixed_percpu_data
            ffffffff81000000 T _stext
            ffffffff81000000 T startup_64
            ffffffff81000100 t helper
            ffffffff81000180 T after
            ffffffffc0201000 t vhost_poll\t[vhost]
            ffffffffc0201040 t vhost_work\t[vhost]
            """;

    @Test
    void lookupFindsCoveringSymbolWithSizeToTheNext() {
        Kallsyms k = Kallsyms.parse(TEXT);
        SymbolResolver.Symbol s = k.lookup(0xffffffff81000110L);
        assertEquals("helper", s.name());
        assertEquals(0xffffffff81000100L, s.start());
        assertEquals(0x80, s.size());
        assertNull(s.module());
        assertEquals("_stext", k.lookup(0xffffffff81000000L).name(), "first listed alias wins");
        SymbolResolver.Symbol m = k.lookup(0xffffffffc0201004L);
        assertEquals("vhost_poll", m.name());
        assertEquals("vhost", m.module());
        assertNull(k.lookup(0xffffffff80000000L));
        assertNull(k.lookup(0));
        assertEquals(5, k.size());
    }

    @Tag("live")
    @Test
    void loadsProcKallsyms() throws IOException {
        Prerequisites.requireRoot();
        Kallsyms k = Kallsyms.load(Path.of("/proc/kallsyms"));
        assertTrue(k.size() > 1000, k.toString());
        String line = Files.readAllLines(Path.of("/proc/kallsyms")).stream().filter(l -> l.contains(" T schedule"))
                .findFirst().orElseThrow();
        long addr = Long.parseUnsignedLong(line.substring(0, 16), 16);
        assertEquals(addr, k.lookup(addr + 1).start());
    }
}
