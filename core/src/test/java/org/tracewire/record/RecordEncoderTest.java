package org.tracewire.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.testing.FixtureRecords;

/**
 * Field maps back into records: every field of the real fixture's records, turned into text the way
 * the backend streams it, encodes into a record that reads back the same values.
 */
class RecordEncoderTest {
    @Test
    void fixtureRecordsRoundTripThroughTheirStreamedFields() {
        List<EventRecord> records = FixtureRecords.load();
        assertTrue(records.size() > 1000, "fixture records: " + records.size());
        int fields = 0;
        for (EventRecord r : records) {
            EventRecord back = RecordEncoder.encode(r.format(), r.layout(), r.cpu(), r.timestampNs(), r.pid(), RecordValues.strings(r));
            assertEquals(r.pid(), back.pid());
            assertEquals(r.format().id(), back.integer(r.format().field("common_type")));
            assertEquals(r.cpu(), back.cpu());
            for (Field f : r.format().fields()) {
                String where = r.format().fullName() + "." + f.name();
                if (f.kind().isString()) {
                    assertEquals(r.string(f), back.string(f), where);
                } else if (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8) {
                    assertEquals(r.integer(f), back.integer(f), where);
                } else {
                    assertArrayEquals(r.bytes(f), back.bytes(f), where);
                }
                fields++;
            }
        }
        assertTrue(fields > 5000, "fields compared: " + fields);
    }

    @Test
    void relLocDataLocNumbersAndBadValuesInBothByteOrders() {
        EventFormat f = FormatParser.parse("test", EventRecordTest.FORMAT, "inline");
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            EventRecord expected = new EventRecord(f, new KernelLayout(order, 8), 1, 5L, EventRecordTest.sample(order));
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("common_pid", "-5");
            v.put("comm", "ab");
            v.put("neg8", -2);
            v.put("pos8", "254");
            v.put("neg16", "-300");
            v.put("u32", "0xdeadbeef");
            v.put("u64", "9223372036854775809");
            v.put("name", "hello");
            v.put("vals", HexFormat.of().formatHex(expected.bytes(f.field("vals"))));
            v.put("rel", "hi");
            v.put("arr", HexFormat.of().formatHex(expected.bytes(f.field("arr"))));
            EventRecord r = RecordEncoder.encode(f, new KernelLayout(order, 8), 1, 5L, 99, v);
            for (Field x : f.allFields()) {
                if (x.kind().isString()) {
                    assertEquals(expected.string(x), r.string(x), x.name());
                } else if (x.kind().isDynamic() || x.size() > 8) {
                    assertArrayEquals(expected.bytes(x), r.bytes(x), x.name());
                } else if (!x.name().equals("common_flags") && !x.name().equals("common_preempt_count")) {
                    assertEquals(expected.integer(x), r.integer(x), x.name());
                }
            }
        }
        EventRecord bad = RecordEncoder.encode(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), 0, 0, 42,
                Map.of("u32", "<field outside record>"));
        assertEquals(0, bad.integer(f.field("u32")));
        assertEquals(42, bad.pid());
        assertEquals("", bad.string(f.field("name")));
        assertNull(RecordEncoder.number("S"));
        assertEquals(-1L, RecordEncoder.number("18446744073709551615"));
    }
}
