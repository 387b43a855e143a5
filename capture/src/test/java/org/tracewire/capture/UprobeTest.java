package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parsing and resolving {@code --uprobe} specifications against real ELF files of this machine. */
class UprobeTest {
    private static final String PATH = System.getenv("PATH");

    @Test
    void resolvesAProgramInPathAndASymbolToItsFileOffset() throws Exception {
        Uprobe p = Uprobe.parse("bash:readline%return line=+0($retval):string", PATH);
        assertEquals(Path.of("/usr/bin/bash").toRealPath(), p.path());
        assertTrue(p.isReturn());
        assertEquals("readline__return", p.eventName());
        assertEquals("line=+0($retval):string", p.fetchArgs());
        // the offset lies in the file, and bash's readline is a function whose code starts there
        assertTrue(p.fileOffset() > 0 && p.fileOffset() < Files.size(p.path()), Long.toHexString(p.fileOffset()));
        assertTrue(p.definition("tracewire_1").startsWith("r:tracewire_1/readline__return " + p.path() + ":0x"),
                p.definition("tracewire_1"));
        Uprobe entry = Uprobe.parse(p.path() + ":readline+4", PATH);
        assertEquals(p.fileOffset() + 4, entry.fileOffset());
        assertEquals("p:g/readline_4 " + p.path() + ":0x" + Long.toHexString(p.fileOffset() + 4), entry.definition("g"));
    }

    @Test
    void badSpecificationsSayWhatIsWrong(@TempDir Path dir) throws Exception {
        assertMessage("is not PATH:SYMBOL", () -> Uprobe.parse("bash", PATH));
        assertMessage("is not PATH:SYMBOL", () -> Uprobe.parse("bash:1abc", PATH));
        assertMessage("no program 'no-such-program-here' in $PATH", () -> Uprobe.parse("no-such-program-here:f", PATH));
        assertMessage("no such file", () -> Uprobe.parse("/no/such/file:f", PATH));
        assertMessage("no function 'no_such_function_here'", () -> Uprobe.parse("bash:no_such_function_here", PATH));
        Path text = Files.writeString(dir.resolve("notelf"), "#!/bin/sh\n");
        assertMessage("is not an ELF file", () -> Uprobe.parse(text + ":main", PATH));
        assertMessage("line breaks", () -> Uprobe.parse("bash:readline x=+0($retval):string\np:evil /bin/sh:0", PATH));
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(part), x.getMessage());
    }
}
