package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.EventPrinter;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.wire.description.EventDescription;

/**
 * The description tree of docs/wire-format.md §4.6 ({@link EventDescription#encode}): golden bytes
 * for a small format, and a decoder (below, written from the spec) that reads every event of the
 * snapshot back into the schema docs/dissector.md documents.
 */
class EventDescriptionTest {

    /** The decoded tree: a table is {@code {list: [...], map: {...}}}; strings, longs, booleans. */
    record Table(List<Object> list, Map<String, Object> map) {
        Object get(String k) {
            return map.get(k);
        }

        Table table(String k) {
            return (Table) map.get(k);
        }
    }

    /** Decodes a description tree, checking depth and counts as a receiver must. */
    static Object decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        Object v = value(b, 1);
        if (b.hasRemaining()) {
            throw new IllegalArgumentException(b.remaining() + " bytes after the tree");
        }
        return v;
    }

    private static Object value(ByteBuffer b, int depth) {
        int tag = b.get() & 0xff;
        switch (tag) {
            case 1 -> {
                int n = b.getInt();
                if (n < 0 || n > b.remaining()) {
                    throw new IllegalArgumentException("string of " + n + " bytes runs past the tree");
                }
                byte[] s = new byte[n];
                b.get(s);
                return new String(s, StandardCharsets.UTF_8);
            }
            case 2 -> {
                return b.getLong();
            }
            case 3 -> {
                return Boolean.TRUE;
            }
            case 4 -> {
                return Boolean.FALSE;
            }
            case 5 -> {
                if (depth > EventDescription.MAX_DEPTH) {
                    throw new IllegalArgumentException("deeper than " + EventDescription.MAX_DEPTH);
                }
                int n = b.getInt();
                if (n < 0 || n > b.remaining()) {
                    throw new IllegalArgumentException("list of " + n + " runs past the tree");
                }
                List<Object> list = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    list.add(value(b, depth + 1));
                }
                int m = b.getInt();
                if (m < 0 || m > b.remaining()) {
                    throw new IllegalArgumentException("map of " + m + " runs past the tree");
                }
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < m; i++) {
                    int kl = b.getInt();
                    byte[] k = new byte[kl];
                    b.get(k);
                    map.put(new String(k, StandardCharsets.UTF_8), value(b, depth + 1));
                }
                return new Table(list, map);
            }
            default -> throw new IllegalArgumentException("unknown tag " + tag + " at " + (b.position() - 1));
        }
    }

    static final String SMALL = "name: small\nID: 7\nformat:\n"
            + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
            + "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
            + "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
            + "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
            + "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
            + "print fmt: \"x=%d\", REC->x\n";

    @Test
    void goldenBytesOfASmallFormat() {
        EventFormat f = FormatParser.parse("test", SMALL, "small");
        byte[] got = EventDescription.encode(f, 8, KernelEnums.empty());
        // {id = 7, system = "test", name = "small", fields = {{name = "x", kind = "int", offset = 8, size = 4,
        //  signed = true, ftype = "i32", fallback = "signed"}}, print = {format = {"x=", {conv = "d", text = "%d"}},
        //  args = {{field = "x"}}}}
        String want = "05" + "00000000" + "00000005"
                + "00000002" + hex("id") + "02" + "0000000000000007"
                + "00000006" + hex("system") + str("test")
                + "00000004" + hex("name") + str("small")
                + "00000006" + hex("fields") + "05" + "00000001"
                + "05" + "00000000" + "00000007"
                + "00000004" + hex("name") + str("x")
                + "00000004" + hex("kind") + str("int")
                + "00000006" + hex("offset") + "02" + "0000000000000008"
                + "00000004" + hex("size") + "02" + "0000000000000004"
                + "00000006" + hex("signed") + "03"
                + "00000005" + hex("ftype") + str("i32")
                + "00000008" + hex("fallback") + str("signed")
                + "00000000"
                + "00000005" + hex("print") + "05" + "00000000" + "00000002"
                + "00000006" + hex("format") + "05" + "00000002" + str("x=")
                + "05" + "00000000" + "00000002" + "00000004" + hex("conv") + str("d") + "00000004" + hex("text") + str("%d")
                + "00000000"
                + "00000004" + hex("args") + "05" + "00000001"
                + "05" + "00000000" + "00000001" + "00000005" + hex("field") + str("x")
                + "00000000";
        assertEquals(want, HexFormat.of().formatHex(got));
        Table t = (Table) decode(got);
        assertEquals(7L, t.get("id"));
        Table x = (Table) t.table("fields").list().get(0);
        assertEquals(Map.of("name", "x", "kind", "int", "offset", 8L, "size", 4L, "signed", true, "ftype", "i32",
                "fallback", "signed"), x.map());
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String str(String s) {
        return "01" + String.format("%08x", s.length()) + hex(s);
    }

    @Test
    void everySnapshotEventDecodesToItsFields() {
        int withPrint = 0;
        int bytes = 0;
        for (EventFormat f : Tools.catalog().formats()) {
            byte[] b = EventDescription.encode(f, 8, KernelEnums.empty());
            bytes += b.length;
            Table t = (Table) decode(b);
            assertEquals((long) f.id(), t.get("id"), f.fullName());
            assertEquals(f.system(), t.get("system"));
            assertEquals(f.name(), t.get("name"));
            List<Object> fields = t.table("fields").list();
            assertEquals(f.fields().size(), fields.size(), f.fullName());
            for (int i = 0; i < fields.size(); i++) {
                Field want = f.fields().get(i);
                Table got = (Table) fields.get(i);
                assertEquals(want.name(), got.get("name"));
                assertEquals(EventDescription.kindName(want.kind()), got.get("kind"));
                assertEquals((long) want.offset(), got.get("offset"), f.fullName() + " " + want.name());
                assertEquals((long) want.size(), got.get("size"));
                assertEquals(want.signed() ? Boolean.TRUE : null, got.get("signed"));
                assertEquals(want.relative() ? Boolean.TRUE : null, got.get("rel"));
                assertNull(got.get("abbrev"), "no ProtoField keys in the description");
            }
            boolean fallback = EventPrinter.compile(f, Tools.layout()).isFallback();
            if (t.get("print") != null) {
                withPrint++;
                assertFalse(fallback, f.fullName());
                assertTrue(t.table("print").get("format") instanceof Table);
                assertTrue(t.table("print").get("args") instanceof Table);
            } else {
                assertTrue(t.get("print_fallback") instanceof String, f.fullName());
            }
        }
        System.out.printf("[description] %d events, %d with a print table, %d bytes in all (%.0f per event)%n",
                Tools.catalog().formats().size(), withPrint, bytes, (double) bytes / Tools.catalog().formats().size());
        assertTrue(withPrint > 2200, "print tables: " + withPrint);
    }

    @Test
    void identifiersAndStructSizesAreLeftToTheContext() {
        Table t = (Table) decode(EventDescription.encode(Tools.catalog().byName("kmem:mm_page_alloc"), 8, null));
        String flat = flatten(t);
        assertTrue(flat.contains("ident=vmemmap_base"), flat);
        assertTrue(flat.contains("pointee=page"), flat);
    }

    @Test
    void enumConstantsAreFoldedWhenGiven() {
        EventFormat f = FormatParser.parse("test", SMALL.replace("REC->x\n", "REC->x + MY_ENUM\n"), "small");
        assertTrue(flatten((Table) decode(EventDescription.encode(f, 8, null))).contains("ident=MY_ENUM"));
        String folded = flatten((Table) decode(EventDescription.encode(f, 8, new KernelEnums(Map.of("MY_ENUM", 5L)))));
        assertFalse(folded.contains("ident"), folded);
        assertTrue(folded.contains("op=+"), folded);
    }

    @Test
    void longSizeMustBeFourOrEight() {
        EventFormat f = FormatParser.parse("test", SMALL, "small");
        assertThrows(IllegalArgumentException.class, () -> EventDescription.encode(f, 2, null));
        assertEquals(Set.of(), Set.of());
    }

    @Test
    void theGeneratedTablesAreTheSameModel() {
        // the plugin's EV table of an event and its description carry the same fields and print table
        EventFormat f = Tools.catalog().byName("sched:sched_switch");
        String lua = new DissectorGenerator(Tools.catalog(), Tools.layout(), "t").generate(List.of(f)).lua();
        Table t = (Table) decode(EventDescription.encode(f, 8, null));
        for (Object o : t.table("fields").list()) {
            Table x = (Table) o;
            assertTrue(lua.contains("{name = \"" + x.get("name") + "\", kind = \"" + x.get("kind") + "\", offset = "
                    + x.get("offset") + ", size = " + x.get("size")), x.map().toString());
        }
        assertTrue(lua.contains("call = \"__print_flags\""), lua);
        assertTrue(flatten(t).contains("call=__print_flags"));
    }

    static String flatten(Object o) {
        StringBuilder sb = new StringBuilder();
        flatten(o, sb);
        return sb.toString();
    }

    private static void flatten(Object o, StringBuilder sb) {
        if (o instanceof Table t) {
            sb.append('{');
            t.list().forEach(x -> {
                flatten(x, sb);
                sb.append(',');
            });
            t.map().forEach((k, v) -> {
                sb.append(k).append('=');
                flatten(v, sb);
                sb.append(',');
            });
            sb.append('}');
        } else {
            sb.append(o);
        }
    }

    @Test
    void layoutOfTheKernelIsIrrelevantBeyondTheLongSize() {
        EventFormat f = Tools.catalog().byName("sched:sched_switch");
        byte[] a = EventDescription.encode(f, 8, null);
        byte[] b = EventDescription.encode(f, 8, KernelEnums.empty());
        assertEquals(HexFormat.of().formatHex(a), HexFormat.of().formatHex(b));
        assertTrue(new KernelLayout(ByteOrder.BIG_ENDIAN, 8).longSize() == 8);
    }
}
