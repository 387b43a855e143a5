package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class FormatParserTest {
    /** A format with every field kind, in the kernel's layout (tabs and all). */
    static final String ALL_KINDS = """
            name: all_kinds
            ID: 4242
            format:
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            \tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;
            \tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;
            \tfield:u64 big;\toffset:32;\tsize:8;\tsigned:0;
            \tfield:void * ptr;\toffset:40;\tsize:8;\tsigned:0;
            \tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:0;
            \tfield:__data_loc u64[] stack;\toffset:52;\tsize:4;\tsigned:0;
            \tfield:__rel_loc char[] rel;\toffset:56;\tsize:4;\tsigned:0;
            \tfield:__data_loc cpumask_t mask;\toffset:60;\tsize:4;\tsigned:0;
            \tfield:unsigned long args[6];\toffset:64;\tsize:48;\tsigned:0;
            \tfield:bool flag;\toffset:112;\tsize:1;\tsigned:0;
            \tfield:struct blob s;\toffset:113;\tsize:3;\tsigned:0;
            \tfield:char buf[];\toffset:116;\tsize:0;\tsigned:0;

            print fmt: "comm=%s pid=%d", REC->comm, REC->pid
            """;

    @Test
    void parsesEveryFieldKind() {
        EventFormat f = FormatParser.parse("test", ALL_KINDS, "inline");
        assertEquals("test:all_kinds", f.fullName());
        assertEquals(4242, f.id());
        assertEquals(4, f.commonFields().size());
        assertTrue(f.commonFields().stream().allMatch(Field::common));
        assertEquals(12, f.fields().size());
        assertField(f, "comm", "char", 8, 16, false, 16, FieldKind.CHAR_ARRAY);
        assertField(f, "pid", "pid_t", 24, 4, true, -1, FieldKind.INTEGER);
        assertField(f, "big", "u64", 32, 8, false, -1, FieldKind.INTEGER);
        assertField(f, "ptr", "void *", 40, 8, false, -1, FieldKind.POINTER);
        assertField(f, "name", "__data_loc char[]", 48, 4, false, 0, FieldKind.DYNAMIC_STRING);
        assertField(f, "stack", "__data_loc u64[]", 52, 4, false, 0, FieldKind.DYNAMIC_ARRAY);
        assertField(f, "rel", "__rel_loc char[]", 56, 4, false, 0, FieldKind.DYNAMIC_STRING);
        assertField(f, "mask", "__data_loc cpumask_t", 60, 4, false, 0, FieldKind.DYNAMIC_CPUMASK);
        assertField(f, "args", "unsigned long", 64, 48, false, 6, FieldKind.ARRAY);
        assertField(f, "flag", "bool", 112, 1, false, -1, FieldKind.INTEGER);
        assertField(f, "s", "struct blob", 113, 3, false, -1, FieldKind.OPAQUE);
        assertField(f, "buf", "char", 116, 0, false, 0, FieldKind.CHAR_ARRAY);
        assertTrue(f.field("rel").relative());
        assertFalse(f.field("name").relative());
        assertEquals(8, f.field("args").elementSize());
        assertEquals(8, f.field("stack").elementSize());
        assertTrue(f.field("buf").isFlexible());
        assertEquals("char comm[16]", f.field("comm").declaration());
        assertEquals("\"comm=%s pid=%d\", REC->comm, REC->pid", f.printFmt());
        assertEquals(116, f.fixedSize());
    }

    private static void assertField(EventFormat f, String name, String type, int offset, int size, boolean signed,
                                    int arrayLength, FieldKind kind) {
        Field field = f.field(name);
        assertEquals(new Field(type, name, offset, size, signed, arrayLength, kind, field.relative(), false), field);
    }

    @Test
    void errorsNameLineAndColumn() {
        String bad = ALL_KINDS.replace("offset:24;", "offset:2x4;");
        FormatException e = assertThrows(FormatException.class, () -> FormatParser.parse("test", bad, "f.txt"));
        assertEquals("f.txt", e.source());
        assertEquals(10, e.line());
        assertEquals("\tfield:pid_t pid;\toffset:".length() + 1, e.column(), "column of the offset's value");
        assertTrue(e.getMessage().startsWith("f.txt:10:"), e.getMessage());

        FormatException noId = assertThrows(FormatException.class,
                () -> FormatParser.parse("t", ALL_KINDS.replace("ID: 4242\n", ""), "g"));
        assertTrue(noId.getMessage().contains("before 'name:' and 'ID:'"), noId.getMessage());

        FormatException dup = assertThrows(FormatException.class,
                () -> FormatParser.parse("t", ALL_KINDS.replace("pid_t pid;", "pid_t comm;"), "g"));
        assertTrue(dup.getMessage().contains("duplicate field name 'comm'"), dup.getMessage());

        FormatException dyn = assertThrows(FormatException.class,
                () -> FormatParser.parse("t", ALL_KINDS.replace("offset:48;\tsize:4;", "offset:48;\tsize:8;"), "g"));
        assertEquals(13, dyn.line());

        // found by TraceDatMutationTest: a common field must stay an integer (readers take it as one)
        FormatException common = assertThrows(FormatException.class, () -> FormatParser.parse("t",
                ALL_KINDS.replace("common_preempt_count;\toffset:3;\tsize:1;", "common_preempt_count;\toffset:3;\tsize:5;"), "g"));
        assertEquals(6, common.line());
        assertTrue(common.getMessage().contains("common field common_preempt_count must be an integer"),
                common.getMessage());
    }

    @Test
    void headerPageAndHeaderEvent() {
        String page = """
                \tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
                \tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
                \tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
                \tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
                """;
        HeaderPage hp = FormatParser.parseHeaderPage(page, "header_page");
        assertEquals(4096, hp.subBufferSize());
        assertEquals(16, hp.data().offset());
        assertEquals(new KernelLayout(ByteOrder.BIG_ENDIAN, 8), KernelLayout.fromHeaderPage(hp, ByteOrder.BIG_ENDIAN));
        HeaderPage hp32 = FormatParser.parseHeaderPage(page.replace("offset:8;\tsize:8;", "offset:8;\tsize:4;")
                .replace("offset:16", "offset:12"), "hp32");
        assertEquals(4, KernelLayout.fromHeaderPage(hp32, ByteOrder.LITTLE_ENDIAN).longSize());

        String event = HeaderEvent.STANDARD_TEXT;
        assertEquals(HeaderEvent.standard(), FormatParser.parseHeaderEvent(event, "header_event"));
        assertThrows(FormatException.class,
                () -> FormatParser.parseHeaderEvent(event.replace("27 bits", "26 bits"), "he"));
    }

    @Test
    void everyFormatOfTheSnapshotParses() {
        var tracefs = Tracefs.open(Prerequisites.snapshot());
        FormatCatalog catalog = tracefs.formats();
        assertEquals(List.of(), List.copyOf(catalog.failures().keySet()), "formats that failed");
        assertTrue(catalog.formats().size() >= 2300, "only " + catalog.formats().size() + " formats");
        EventFormat sw = catalog.byName("sched:sched_switch");
        assertEquals(FieldKind.CHAR_ARRAY, sw.field("prev_comm").kind());
        assertEquals(sw, catalog.byId().get(sw.id()));
        assertEquals(new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), tracefs.layout());
        // every field of every event lies inside the record's fixed part and has a known kind
        for (EventFormat f : catalog.formats()) {
            for (Field field : f.allFields()) {
                assertTrue(field.offset() + field.size() <= f.fixedSize(), f.fullName() + " " + field.name());
            }
        }
    }
}
