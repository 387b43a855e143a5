package org.tracewire.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.testing.Prerequisites;

/** The format identity hash of the checked-in snapshot: stable, order-independent, sensitive. */
class FormatIdentityTest {
    @Test
    void snapshotHashIsStableAcrossLoadsAndChangesWithOneOffset() {
        FormatCatalog a = Tracefs.open(Prerequisites.snapshot()).formats();
        FormatCatalog b = Tracefs.open(Prerequisites.snapshot()).formats();
        assertTrue(a.formats().size() > 2000);
        long ha = FormatIdentity.of(a);
        assertEquals(ha, FormatIdentity.of(b));
        assertEquals(16, FormatIdentity.hex(ha).length());

        List<EventFormat> shuffled = new ArrayList<>(a.formats());
        Collections.shuffle(shuffled, new Random(3));
        assertEquals(ha, FormatIdentity.of(shuffled), "input order does not matter");

        EventFormat sw = a.byName("sched:sched_switch");
        List<Field> fields = new ArrayList<>(sw.fields());
        Field f0 = fields.get(0);
        fields.set(0, new Field(f0.type(), f0.name(), f0.offset() + 1, f0.size(), f0.signed(), f0.arrayLength(),
                f0.kind(), f0.relative(), f0.common()));
        List<EventFormat> changed = new ArrayList<>(a.formats());
        changed.set(changed.indexOf(sw), new EventFormat(sw.system(), sw.name(), sw.id(), sw.commonFields(), fields,
                sw.printFmt()));
        assertNotEquals(ha, FormatIdentity.of(changed));

        List<EventFormat> printChanged = new ArrayList<>(a.formats());
        printChanged.set(printChanged.indexOf(sw), new EventFormat(sw.system(), sw.name(), sw.id(),
                sw.commonFields(), sw.fields(), sw.printFmt() + " "));
        assertNotEquals(ha, FormatIdentity.of(printChanged));
    }

    /** The test vector of docs/wire-format.md, section 5. */
    @Test
    void documentedTestVector() {
        String text = """
                name: sample
                ID: 7
                format:
                \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
                \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
                \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
                \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

                \tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;
                \tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;

                print fmt: "comm=%s name=%s", REC->comm, __get_str(name)
                """;
        EventFormat f = FormatParser.parse("test", text, "inline");
        assertEquals("e3c24e1ac8d8b870", FormatIdentity.hex(FormatIdentity.of(List.of(f))));
    }

    @Test
    void hashIsTheFirstEightDigestBytesBigEndian() {
        EventFormat f = new EventFormat("s", "e", 1, List.of(), List.of(), "\"x\"");
        byte[] d = FormatIdentity.digest(List.of(f));
        long h = FormatIdentity.of(List.of(f));
        assertEquals(String.format("%02x%02x", d[0], d[1]), FormatIdentity.hex(h).substring(0, 4));
        assertEquals(new FormatCatalog(List.of(f), Map.of()).formats().size(), 1);
        assertEquals(h, FormatIdentity.of(new FormatCatalog(List.of(f), Map.of())));
    }
}
