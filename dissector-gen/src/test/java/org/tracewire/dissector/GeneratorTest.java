package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.tracewire.format.FormatIdentity;

/** Generation over the whole snapshot: determinism, header, syntax under Lua 5.2 and 5.4. */
class GeneratorTest {

    @Test
    void sameInputSameBytes() {
        DissectorGenerator.Result a = Tools.all();
        DissectorGenerator.Result b = new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generateAll();
        assertEquals(a.lua(), b.lua());
        assertEquals(Tools.catalog().formats().size(), a.events());
    }

    @Test
    void headerNamesTheHashAndSaysGenerated() {
        String lua = Tools.all().lua();
        String hash = FormatIdentity.hex(FormatIdentity.of(Tools.catalog()));
        String head = lua.substring(0, 600);
        assertTrue(head.contains("GENERATED"), head);
        assertTrue(head.contains("format identity hash: " + hash), head);
        assertTrue(lua.contains("local TW_GEN_HASH = \"" + hash + "\""));
        assertTrue(!lua.matches("(?s).*20[0-9][0-9]-[01][0-9]-[0-3][0-9].*"), "no dates");
    }

    @Test
    void allEventsPassLuacOfBothVersions() throws Exception {
        org.tracewire.testing.Prerequisites.requireTool("luac5.2");
        org.tracewire.testing.Prerequisites.requireTool("luac5.4");
        Path p = Tools.allPlugin();
        for (String luac : new String[] {"luac5.2", "luac5.4"}) {
            Tools.Run r = Tools.run(luac, "-p", p.toString());
            assertEquals(0, r.exit(), luac + ": " + r.err());
        }
        Path rt = Path.of(System.getProperty("tracewire.repo", ".."), "lua", "tracewire.lua");
        for (String luac : new String[] {"luac5.2", "luac5.4"}) {
            Tools.Run r = Tools.run(luac, "-p", rt.toString());
            assertEquals(0, r.exit(), luac + " runtime: " + r.err());
        }
    }
}
