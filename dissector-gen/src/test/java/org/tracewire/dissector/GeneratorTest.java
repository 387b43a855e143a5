package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatIdentity;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.wire.description.LuaWriter;

/** Generation over the whole snapshot: determinism, header, syntax under Lua 5.2 and 5.4. */
class GeneratorTest {

    @Test
    void sameInputSameBytes() {
        DissectorGenerator.Result a = Tools.all();
        DissectorGenerator.Result b = new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(Tools.catalog().formats());
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
        String params = "local TW_PARAMS = {\n  format_hash = \"" + hash + "\",\n  long_size = "
                + Tools.layout().longSize() + ",\n  source = \"snapshots/linux-6.18\",\n  c_arith = {\n";
        assertTrue(lua.contains(params), "the generated parameters: " + lua.substring(0, 1200));
        assertEquals(1, lua.split("local TW_PARAMS = ", -1).length - 1, "one TW_PARAMS: the runtime alone's is left out");
        assertTrue(!lua.matches("(?s).*20[0-9][0-9]-[01][0-9]-[0-3][0-9].*"), "no dates");
    }

    @Test
    void theRuntimeAloneCarriesTheGeneratedArithmeticRules() {
        String head = "  c_arith = ";
        String generated = head + DissectorGenerator.cArith().render(2, head.length(), Map.of()) + ",\n";
        assertTrue(Tools.all().lua().contains(generated), "a plugin's TW_PARAMS.c_arith: " + generated);
        String runtime = DissectorGenerator.runtimeOnly();
        assertTrue(runtime.contains(generated),
                "lua/runtime/00-params.lua must carry CArith's table as the generator writes it:\n" + generated);
    }

    @Test
    void allEventsPassLuacOfBothVersions() throws Exception {
        Prerequisites.requireTool("luac5.2");
        Prerequisites.requireTool("luac5.4");
        Path p = Tools.allPlugin();
        for (String luac : new String[] {"luac5.2", "luac5.4"}) {
            Tools.Run r = Tools.run(luac, "-p", p.toString());
            assertEquals(0, r.exit(), luac + ": " + r.err());
        }
        Path rt = Tools.runtimeOnly();
        for (String luac : new String[] {"luac5.2", "luac5.4"}) {
            Tools.Run r = Tools.run(luac, "-p", rt.toString());
            assertEquals(0, r.exit(), luac + " runtime: " + r.err());
        }
    }

    @Test
    void runtimeIsItsFilesInNameOrderAndAPluginHasThemAll() throws Exception {
        Path dir = Path.of(System.getProperty("tracewire.repo", ".."), "lua", "runtime");
        List<String> names;
        try (var files = Files.list(dir)) {
            names = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".lua")).sorted().toList();
        }
        assertEquals(names, DissectorGenerator.RUNTIME_FILES, "cat lua/runtime/*.lua is the runtime alone");
        StringBuilder cat = new StringBuilder();
        for (String n : names) {
            cat.append(Files.readString(dir.resolve(n)));
        }
        assertEquals(cat.toString(), DissectorGenerator.runtimeOnly());
        assertTrue(cat.toString().startsWith("-- tracewire"), "the Debian package's loader recognises it by that");
        // a plugin: every runtime file but the parameters and the (empty) tables, in the same order
        String lua = Tools.all().lua();
        int at = 0;
        for (String n : names) {
            if (n.equals(DissectorGenerator.PARAMS_FILE) || n.equals(DissectorGenerator.TABLES_FILE)) {
                continue;
            }
            int i = lua.indexOf(Files.readString(dir.resolve(n)), at);
            assertTrue(i >= at, n + " in the plugin after the previous file");
            at = i;
        }
        assertTrue(lua.indexOf(DissectorGenerator.BEGIN) < lua.indexOf(Files.readString(dir.resolve("70-dissection-helpers.lua"))));
    }

    @Test
    void sourceLabelIsEscapedInTheParameters() {
        String label = "x\"\n}\nos.execute('id') --";
        String lua = new DissectorGenerator(Tools.catalog(), Tools.layout(), label)
                .generate(List.of(Tools.catalog().byName("sched:sched_switch"))).lua();
        assertTrue(lua.contains("  source = " + LuaWriter.string(label) + ",\n"), lua.substring(0, 1200));
        assertTrue(!lua.contains("os.execute('id') --\n"), "the label stays inside its string");
    }

    @Test
    void forTracefsIsTheGeneratorOnTheTracefsAndWritesAtomically() throws Exception {
        DissectorGenerator.Result r = DissectorGenerator.forTracefs(Tools.snapshot(), List.of("sched:*"));
        DissectorGenerator.Result direct = new DissectorGenerator(Tools.catalog(), Tools.layout(), Tools.snapshot().label())
                .generate(EventSelector.select(Tools.catalog(), List.of("sched:*")));
        assertEquals(direct.lua(), r.lua());
        assertEquals(List.of(), r.warnings(), "a snapshot has no BTF to read");
        Path f = r.write(Tools.tempDir().resolve("for-tracefs.lua"));
        assertEquals(r.lua(), Files.readString(f));
        assertTrue(r.summary().startsWith(r.events() + " events, " + r.fields() + " fields, format hash "), r.summary());
    }

    @Test
    void constantsAreFoldedWithCSemantics() {
        String text = "name: fold\nID: 4244\nformat:\n"
                + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                + "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                + "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                + "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
                + "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                + "print fmt: \"%d %u %lx %d %d %d\", (1 << 3) | 4, (unsigned char)300, (1UL << 63) >> 62, -7 / 2,"
                + " REC->x & ((1 << 4) - 1), 1 / 0\n";
        EventFormat f = FormatParser.parse("test", text, "fold");
        String lua = new DissectorGenerator(new FormatCatalog(List.of(f), Map.of()),
                new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), "test").generate(List.of(f)).lua();
        String args = lua.substring(lua.indexOf("args = {"), lua.indexOf("-- ======================== EVENT TABLES END"));
        assertTrue(args.contains("\n        12,\n"), args);
        assertTrue(args.contains("\n        {int = 44, type = \"u8\"},\n"), args);
        assertTrue(args.contains("\n        {int = 2, type = \"u64\"},\n"), args);
        assertTrue(args.contains("\n        -3,\n"), args);
        assertTrue(args.contains("\n        {op = \"&\", {field = \"x\"}, 15},\n"), args);
        assertTrue(args.contains("\n        {op = \"/\", 1, 0},\n"), "division by zero is left to the runtime: " + args);
    }
}
