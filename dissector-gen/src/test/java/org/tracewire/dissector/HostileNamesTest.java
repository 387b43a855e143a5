package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * Format files with hostile names (quotes, brackets, newlines, {@code ]]}, comment starters, Lua
 * keywords, code) generate a valid and inert plugin: it compiles under Lua 5.2 and 5.4, loads in
 * tshark without errors or side effects, and decodes a frame of the hostile event, from its tables and,
 * with the runtime alone, from the (equally hostile) description tree of the capture's FORMAT message.
 */
class HostileNamesTest {
    static final String EVIL = "x\"]]--[[ os.exit(3) error('pwned') \n\\\"; end";

    static EventFormat hostile() {
        String text = "name: end\n"
                + "ID: 4242\n"
                + "format:\n"
                + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                + "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                + "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                + "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
                + "\n"
                + "\tfield:int function;\toffset:8;\tsize:4;\tsigned:1;\n"
                + "\tfield:char nil[8];\toffset:12;\tsize:8;\tsigned:0;\n"
                + "\tfield:unsigned int Local;\toffset:20;\tsize:4;\tsigned:0;\n"
                + "\tfield:unsigned int local;\toffset:24;\tsize:4;\tsigned:0;\n"
                + "\n"
                + "print fmt: \"a\\\"]] --[[ \\n end=%d %s %s %s\", REC->function, REC->nil,"
                + " __print_symbolic(REC->Local, { 1, \"]]\\\"os.exit(4)\" }, { 2, \"--\\n\" }),"
                + " __print_flags(REC->local, \"]]\", { 1, \"\\\"); os.exit(5) --\" }, { 2, \"end\" })\n";
        return FormatParser.parse("evil\"sys]]--\nos.exit(2)", text, "hostile");
    }

    static EventFormat direct() {
        EventFormat base = hostile();
        List<Field> fields = new ArrayList<>();
        for (Field f : base.fields()) {
            fields.add(new Field(f.type(), f.name() + EVIL, f.offset(), f.size(), f.signed(),
                    f.arrayLength(), f.kind(), f.relative(), f.common()));
        }
        return new EventFormat(EVIL, EVIL + "\r\n\0]]", 4243, base.commonFields(), fields,
                "\"" + EVIL.replace("\"", "\\\"").replace("\n", "\\n") + " %d\", REC->function");
    }

    @Test
    void hostileNamesGenerateAValidInertPlugin() throws Exception {
        FormatCatalog catalog = new FormatCatalog(List.of(hostile(), direct()), Map.of());
        KernelLayout layout = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        DissectorGenerator.Result res = new DissectorGenerator(catalog, layout, EVIL).generate(catalog.formats());
        String lua = res.lua();
        for (String line : lua.split("\n")) {
            assertFalse(line.startsWith("os.exit") || line.contains("error('pwned')") && !line.contains("\""),
                    "raw hostile code on a line: " + line);
        }
        assertTrue(lua.chars().allMatch(c -> c == '\n' || (c >= 0x20 && c < 0x7f)), "plugin is printable ASCII");
        Path p = Tools.tempDir().resolve("hostile.lua");
        Files.writeString(p, lua);
        if (Files.isExecutable(Path.of("/usr/bin/luac5.2"))) {
            for (String luac : new String[] {"luac5.2", "luac5.4"}) {
                Tools.Run r = Tools.run(luac, "-p", p.toString());
                assertEquals(0, r.exit(), luac + ": " + r.err());
            }
        }
        for (List<String> abbrevs : res.abbreviations().values()) {
            for (String a : abbrevs) {
                assertTrue(a.matches("tracewire\\.[a-z0-9_]+\\.[a-z0-9_]+\\.[a-z0-9_]+"), a);
            }
        }
    }

    @Test
    @Tag("tshark")
    void hostilePluginLoadsAndDecodesInTshark() throws Exception {
        Prerequisites.requireTool("tshark");
        EventFormat h = hostile();
        FormatCatalog catalog = new FormatCatalog(List.of(h, direct()), Map.of());
        KernelLayout layout = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        DissectorGenerator.Result res = new DissectorGenerator(catalog, layout, EVIL).generate(catalog.formats());
        Path p = Tools.tempDir().resolve("hostile.lua");
        Files.writeString(p, res.lua());
        Tools.Run fields = Tools.run("tshark", "-G", "fields", "-X", "lua_script:" + p);
        assertEquals(0, fields.exit(), fields.err());
        assertFalse(fields.err().contains("pwned") || fields.err().toLowerCase().contains("lua"), fields.err());
        for (List<String> abbrevs : res.abbreviations().values()) {
            for (String a : abbrevs) {
                assertTrue(fields.out().contains("\t" + a + "\t"), a + " not registered");
            }
        }
        ByteBuffer payload = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
        payload.putShort(0, (short) 4242).putInt(4, 77).putInt(8, -5);
        payload.put(12, "ab]]\"c".getBytes(StandardCharsets.US_ASCII));
        payload.putInt(20, 1).putInt(24, 3);
        EventRecord r = new EventRecord(h, layout, 0, 5, payload);
        Path pcap = Tools.tempDir().resolve("hostile.pcapng");
        try (V2Capture c = new V2Capture(pcap, layout, null, true, false)) {
            c.capture(EVIL);
            c.event(r);
        }
        String want = new KernelTextRenderer(null, layout,
                PrintContext.empty()).body(r);
        // the generated tables, and the runtime alone from the capture's (hostile) description tree
        for (Path plugin : List.of(p, Tools.runtimeOnly())) {
            Tools.Run dec = Tools.tshark(plugin, pcap, "-Y", "tracewire.kind == 0", "-T", "fields", "-e", "tracewire.text",
                    "-e", "_ws.lua.error", "-e", "tracewire.expert.internal");
            assertEquals(0, dec.exit(), dec.err());
            assertFalse(dec.err().contains("pwned"), dec.err());
            // tshark -T fields escapes the newline of the print fmt as \n
            assertEquals(want.replace("\\", "\\\\").replace("\n", "\\n"), dec.out().strip(), plugin.toString());
        }
    }
}
