package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;

/** The version-2 codec against {@code docs/wire-format.md}: exact bytes, round trips, fragments, errors. */
class WireCodecTest {
    private static final String SAMPLE = """
            name: sample
            ID: 7
            format:
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            \tfield:int value;\toffset:8;\tsize:4;\tsigned:1;

            print fmt: "value=%d", REC->value
            """;

    private static ByteBuffer payload() {
        return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 7).put((byte) 0x81)
                .put((byte) 0x12).putInt(-5).putInt(42).flip();
    }

    @Test
    void eventFrameBytesFollowTheSpec() {
        FrameEncoder enc = new FrameEncoder();
        ByteBuffer out = ByteBuffer.allocate(64);
        assertEquals(28, enc.event(ByteOrder.LITTLE_ENDIAN, payload(), 3, 0x0102030405060708L, false, out));
        enc.event(ByteOrder.LITTLE_ENDIAN, payload(), 3, 9, true, ByteBuffer.allocate(64));
        assertEquals(2, enc.nextSequence(3), "per-cpu sequence");
        assertEquals(0, enc.nextSequence(4));
        assertEquals("02" + "10" + "0003" + "00000000" + "0102030405060708" + "0700" + "81" + "12" + "fbffffff" + "2a000000",
                HexFormat.of().formatHex(out.array(), 0, 28));
        WireFrame f = WireDecoder.decodeBare(ByteBuffer.wrap(out.array(), 0, 28));
        assertEquals(FrameKind.EVENT, f.kind());
        assertEquals(3, f.header().cpu());
        assertEquals(ByteOrder.LITTLE_ENDIAN, f.header().byteOrder());
        assertEquals(7, f.eventId());
        assertEquals(42, f.body().getInt(8));
        assertNull(f.source());
    }

    /** The header's kind and cpu read alone ({@code WireHeader.kindCodeAt}, {@code kindCode}, {@code cpu}). */
    @Test
    void kindAndCpuReadWithoutTheWholeHeader() {
        for (FrameKind k : FrameKind.values()) {
            for (int cpu : new int[] {0, 3, 0x1234, WireHeader.NO_CPU}) {
                ByteBuffer out = ByteBuffer.allocate(40);
                out.position(7); // at an index, behind other bytes
                new WireHeader(WireHeader.VERSION, k.code(), WireHeader.FLAG_LITTLE_ENDIAN | WireHeader.FLAG_RAW_CLOCK,
                        cpu, 0xfffffffeL, -1L).write(out);
                assertEquals(k.code(), WireHeader.kindCodeAt(out, 7), k + " cpu " + cpu);
                byte[] frame = Arrays.copyOfRange(out.array(), 7, 7 + WireHeader.SIZE);
                assertEquals(k.code(), WireHeader.kindCode(frame), k + " cpu " + cpu);
                assertEquals(cpu, WireHeader.cpu(frame), k + " cpu " + cpu);
                assertEquals(cpu, WireHeader.read(ByteBuffer.wrap(frame), 0, 0).cpu());
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> WireHeader.kindCodeAt(ByteBuffer.allocate(1), 0));
    }

    /**
     * An event frame written at an index from a payload's index and length
     * ({@code event(order, src, from, length, ..., out, at)}) has the bytes of one written at the
     * position from a payload's position to its limit, for payloads of every length mod 8, cut ones,
     * either buffer order, heap and direct; it sizes as {@code eventSize} says and moves no
     * position or limit.
     */
    @Test
    void eventsWrittenAtAnIndexEqualEventsWrittenAtThePosition() {
        Random rnd = new Random(5);
        for (ByteOrder outOrder : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
            for (int len = 0; len < 80; len++) {
                FrameEncoder a = new FrameEncoder(64);
                FrameEncoder b = new FrameEncoder(64);
                byte[] bytes = new byte[len + 3];
                rnd.nextBytes(bytes);
                ByteBuffer payload = (len % 2 == 0 ? ByteBuffer.allocateDirect(len + 3).put(bytes).clear()
                        : ByteBuffer.wrap(bytes)).order(ByteOrder.BIG_ENDIAN).position(3);
                ByteBuffer relative = ByteBuffer.allocate(100).order(outOrder).position(5);
                ByteBuffer absolute = ByteBuffer.allocateDirect(100).order(outOrder).position(1).limit(90);
                int n = a.event(ByteOrder.LITTLE_ENDIAN, payload, len % 7, 77L * len, len % 3 == 0, relative);
                assertEquals(n, b.eventSize(len));
                assertEquals(n, b.event(ByteOrder.LITTLE_ENDIAN, payload, 3, len, len % 7, 77L * len, len % 3 == 0, absolute, 5));
                assertEquals(3, payload.position());
                assertEquals(len + 3, payload.limit());
                assertEquals(1, absolute.position());
                assertEquals(90, absolute.limit());
                byte[] x = new byte[n];
                byte[] y = new byte[n];
                relative.get(5, x);
                absolute.get(5, y);
                assertArrayEquals(x, y, "payload of " + len + " bytes, " + outOrder);
                assertEquals(a.nextSequence(len % 7), b.nextSequence(len % 7));
            }
        }
        FrameEncoder enc = new FrameEncoder();
        ByteBuffer small = ByteBuffer.allocate(40);
        assertThrows(IndexOutOfBoundsException.class, () -> enc.event(ByteOrder.LITTLE_ENDIAN, payload(), 0, 12, 1, 0, false, small, 20));
        assertThrows(IndexOutOfBoundsException.class, () -> enc.event(ByteOrder.LITTLE_ENDIAN, payload(), 4, 12, 1, 0, false,
                ByteBuffer.allocate(64), 0), "payload beyond its buffer");
        assertEquals(0, enc.nextSequence(1), "nothing written, no sequence used");
        assertThrows(IllegalArgumentException.class, () -> enc.event(ByteOrder.LITTLE_ENDIAN, payload(), 0, 12,
                WireHeader.NO_CPU, 0, false, small, 0));
    }

    @Test
    void ethernetWrapsAndTruncates() {
        FrameEncoder enc = new FrameEncoder();
        ByteBuffer big = ByteBuffer.allocate(3000).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 7);
        big.position(0);
        ByteBuffer bare = ByteBuffer.allocate(4000);
        int n = enc.event(ByteOrder.LITTLE_ENDIAN, big, 0, 1, false, bare);
        assertEquals(3016, n);
        ByteBuffer eth = Ethernet.wrap(bare.flip(), MacAddress.forHost("vm"), 1514);
        assertEquals(1514, eth.remaining());
        WireFrame f = WireDecoder.decodeEthernet(eth);
        assertTrue(f.header().has(WireHeader.FLAG_TRUNCATED));
        assertEquals(MacAddress.parse("a2:45:d8:87:53:54"), f.source());
        assertEquals(1500 - 16, f.body().remaining());
        ByteBuffer cut = ByteBuffer.allocate(100);
        FrameEncoder small = new FrameEncoder(40);
        assertEquals(40, small.event(ByteOrder.BIG_ENDIAN, big.position(0), 0, 1, false, cut));
        assertTrue(WireDecoder.decodeBare(cut.flip()).header().has(WireHeader.FLAG_TRUNCATED));
    }

    @Test
    void contextMessagesFragmentAndReassembleInAnyOrder() throws Exception {
        EventFormat f = FormatParser.parse("test", SAMPLE, "sample");
        byte[] description = new byte[5000];
        new Random(1).nextBytes(description);
        ContextMessage m = ContextMessages.format(f, SAMPLE, description, Map.of("TASK_RUNNING", 0L));
        FrameEncoder enc = new FrameEncoder();
        List<ByteBuffer> frames = enc.context(m, WireHeader.NO_CPU, true, 5);
        assertEquals(4, frames.size(), "5,000+ bytes in 1,472-byte fragments");
        for (ByteBuffer b : frames) {
            assertTrue(Ethernet.HEADER + b.remaining() <= 1514);
        }
        List<ByteBuffer> shuffled = new ArrayList<>(frames);
        Collections.shuffle(shuffled, new Random(3));
        shuffled.add(1, frames.get(2).duplicate()); // a repeat
        ContextAssembler a = new ContextAssembler();
        ContextMessage.Parsed done = null;
        int completions = 0;
        for (ByteBuffer b : shuffled) {
            ContextMessage.Parsed p = a.add(0, WireDecoder.decodeBare(b.duplicate()));
            if (p != null) {
                done = p;
                completions++;
            }
        }
        assertEquals(1, completions);
        assertNotNull(done);
        assertEquals(m, done.message());
        assertArrayEquals(description, done.message().first(ContextMessage.FORMAT_DESCRIPTION).value());
        WireContext c = new WireContext();
        c.apply(done.message(), WireHeader.NO_CPU);
        assertEquals(f, c.format(7));
        assertEquals(0L, c.printContext().enums().value("TASK_RUNNING"));
    }

    @Test
    void contextGivesLayoutConstantsSymbolsTasksAndLost() {
        WireContext c = new WireContext();
        c.apply(ContextMessages.capture(new ContextMessages.Capture("c1", "6.18", "b", "h", "local", 10, 1,
                new KernelLayout(ByteOrder.BIG_ENDIAN, 4), null, null,
                new LinkedHashMap<>(Map.of("HZ", 250L, "vmemmap_base", 0xffffea0000000000L, "sizeof(page)", 64L)),
                "t", List.of("sched:sched_switch"))), WireHeader.NO_CPU);
        assertEquals(new KernelLayout(ByteOrder.BIG_ENDIAN, 4), c.layout());
        assertEquals(250, c.printContext().hz());
        assertEquals(0xffffea0000000000L, c.printContext().variables().value("vmemmap_base"));
        assertEquals(64, c.printContext().variables().sizeOf("page"));
        c.apply(ContextMessage.builder(FrameKind.SYMBOLS).symbol(0xffffffff81000010L, 0xffffffff81000000L, 0x40, "f [m]")
                .printk(0x1234, "hello").build(), WireHeader.NO_CPU);
        var s = c.printContext().symbols().lookup(0xffffffff81000010L);
        assertEquals("f", s.name());
        assertEquals("m", s.module());
        assertEquals("hello", c.printContext().printkFormats().lookup(0x1234));
        c.apply(ContextMessage.builder(FrameKind.PROCESS).task(42, 40, "worker").build(), WireHeader.NO_CPU);
        assertEquals(new WireContext.Task(42, 40, "worker"), c.tasks().get(42));
        c.apply(ContextMessages.lost(7), 1);
        c.apply(ContextMessages.lost(3), 1);
        assertEquals(10L, c.lost().get(1));
        c.apply(ContextMessages.capture(new ContextMessages.Capture("c2", null, null, null, null, 0, 0,
                new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), null, null, Map.of(), null, null)), WireHeader.NO_CPU);
        assertTrue(c.tasks().isEmpty(), "another capture id starts afresh");
    }

    @Test
    void errorsNameTheOffset() {
        byte[] v1 = new byte[80];
        v1[12] = (byte) 0x88;
        v1[13] = (byte) 0xb5;
        v1[14] = 0x54;
        v1[15] = 0x57;
        WireFormatException e = assertThrows(WireFormatException.class, () -> WireDecoder.decodeEthernet(ByteBuffer.wrap(v1)));
        assertEquals(14, e.offset());
        assertTrue(e.getMessage().contains("version 1"), e.getMessage());
        assertEquals(12, assertThrows(WireFormatException.class,
                () -> WireDecoder.decodeEthernet(ByteBuffer.wrap(new byte[40]))).offset());
        byte[] shortEvent = new byte[20];
        shortEvent[0] = 2;
        assertEquals(16, assertThrows(WireFormatException.class, () -> WireDecoder.decodeBare(shortEvent)).offset());
        byte[] badFragment = new byte[30];
        badFragment[0] = 2;
        badFragment[1] = 2;
        badFragment[21] = 3; // index 3
        badFragment[23] = 2; // of 2
        assertEquals(20, assertThrows(WireFormatException.class, () -> WireDecoder.decodeBare(badFragment)).offset());
        byte[] reserved = new byte[16];
        reserved[0] = 2;
        reserved[1] = 9;
        assertNull(WireDecoder.decodeBare(reserved).kind(), "reserved kinds are skipped, not errors");
        ContextMessage.Parsed p = ContextMessage.parse(FrameKind.PROCESS, new byte[] {0, 1, 0, 0, 0, 2, 9, 9, 0, 1, 0, 0, 0, 50});
        assertEquals(1, p.message().items().size());
        assertTrue(p.truncated());
        assertEquals(8, p.badOffset());
    }
}
