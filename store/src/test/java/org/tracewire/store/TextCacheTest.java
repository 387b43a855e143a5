package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/**
 * {@link TextCache} gives the text {@link EventRecord#string} gives (UTF-8), whatever the names, their
 * padding after the NUL, the byte order or the clashes of its slots.
 */
class TextCacheTest {
    private static final String FORMAT = "name: named\nID: 9\nformat:\n"
            + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
            + "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
            + "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
            + "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
            + "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
            + "\tfield:char tag[8];\toffset:24;\tsize:8;\tsigned:0;\n\n"
            + "print fmt: \"comm=%s tag=%s\", REC->comm, REC->tag\n";
    private static final EventFormat F = FormatParser.parse("test", FORMAT, "named");

    /** A record whose {@code comm} and {@code tag} hold these bytes (zero-padded), in {@code order}. */
    private static EventRecord record(byte[] comm, byte[] tag, ByteOrder order) {
        ByteBuffer p = ByteBuffer.allocate(32).order(order);
        p.put(8, comm, 0, Math.min(16, comm.length));
        p.put(24, tag, 0, Math.min(8, tag.length));
        return new EventRecord(F, new KernelLayout(order, 8), 0, 0, p);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void givesTheRecordsTextForEveryNameAndPadding() {
        TextCache comms = new TextCache();
        TextCache tags = new TextCache();
        List<byte[]> names = new ArrayList<>(List.of(bytes(""), bytes("bash"), bytes("stress-ng-switc"),
                bytes("abcdefghijklmnop"), bytes("kworker/0:1"), bytes("bash\0garbage"), bytes("bash\0other"),
                bytes("\u00e9t\u00e9")));
        Random random = new Random(33);
        for (int i = 0; i < 2_000; i++) { // far more names than slots: clashes replace
            byte[] n = new byte[1 + random.nextInt(16)];
            for (int j = 0; j < n.length; j++) {
                n[j] = (byte) (random.nextInt(4) == 0 ? 0 : 'a' + random.nextInt(26));
            }
            names.add(n);
        }
        for (int round = 0; round < 3; round++) {
            for (byte[] n : names) {
                for (ByteOrder order : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
                    EventRecord r = record(n, n, order);
                    assertArrayEquals(bytes(r.string(F.field("comm"))), comms.utf8(r, F.field("comm")));
                    assertArrayEquals(bytes(r.string(F.field("tag"))), tags.utf8(r, F.field("tag")));
                }
            }
        }
    }

    @Test
    void aNameSeenAgainIsTheSameArray() {
        TextCache comms = new TextCache();
        byte[] first = comms.utf8(record(bytes("bash"), bytes(""), ByteOrder.LITTLE_ENDIAN), F.field("comm"));
        assertSame(first, comms.utf8(record(bytes("bash"), bytes("x"), ByteOrder.LITTLE_ENDIAN), F.field("comm")));
    }
}
