package org.tracewire.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Round trips, exact sizes, the byte layout of docs/wire-format.md, decoder errors and fuzzing. */
class WireCodecTest {
    static final MacAddress SRC = MacAddress.forHost("3d1219c7c4c5404aaa1f6d2a48adfda4");

    static WireFrame randomFrame(Random rnd) {
        WireHeader h = new WireHeader(1 + rnd.nextInt(255), rnd.nextInt(256), rnd.nextInt(65536), rnd.nextInt(65536),
                rnd.nextInt(256), rnd.nextInt(256), rnd.nextInt(), rnd.nextLong(), rnd.nextLong(),
                rnd.nextLong() & 0xffff_ffffL, rnd.nextInt(65536), rnd.nextLong());
        List<Tlv> tlvs = new ArrayList<>();
        int n = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(30);
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[rnd.nextInt(8) == 0 ? rnd.nextInt(1500) : rnd.nextInt(20)];
            rnd.nextBytes(v);
            tlvs.add(new Tlv(rnd.nextInt(3) == 0 ? rnd.nextInt(65536) : i, v));
        }
        return new WireFrame(new MacAddress(rnd.nextLong() >>> 16), new MacAddress(rnd.nextLong() >>> 16), h, tlvs);
    }

    @Test
    void randomFramesRoundTripAndSizeIsBytesWritten() {
        Random rnd = new Random(0x7e5eed);
        for (int i = 0; i < 5_000; i++) {
            WireFrame f = randomFrame(rnd);
            int pad = rnd.nextInt(16);
            ByteBuffer buf = ByteBuffer.allocate(f.size() + pad + 16).order(ByteOrder.LITTLE_ENDIAN);
            buf.position(pad);
            int written = WireEncoder.encode(f, buf);
            assertEquals(f.size(), written);
            assertEquals(pad + f.size(), buf.position());
            assertEquals(ByteOrder.LITTLE_ENDIAN, buf.order(), "byte order restored");
            buf.flip().position(pad);
            WireFrame back = WireDecoder.decode(buf);
            assertEquals(f, back);
            assertEquals(f.hashCode(), back.hashCode());
            assertEquals(pad + f.size(), buf.position(), "decoder consumed exactly the frame");
            assertArrayEquals(WireEncoder.toBytes(f), WireEncoder.toBytes(back));
        }
    }

    @Test
    void bytesFollowTheSpecTable() {
        WireHeader h = new WireHeader(1, WireHeader.FLAG_LITTLE_ENDIAN | WireHeader.FLAG_RAW_CLOCK, 3, 0x0140,
                0x81, 0x12, -5, 0x0102030405060708L, 9, 10, 11, 0x1122334455667788L);
        WireFrame f = new WireFrame(MacAddress.TRACEWIRE, MacAddress.parse("06:00:00:00:00:01"), h,
                List.of(Tlv.eventName("a:b"), new Tlv(1, new byte[] {(byte) 0xaa})));
        byte[] b = WireEncoder.toBytes(f);
        String hex = HexFormat.of().formatHex(b);
        assertEquals("027477697265" + "060000000001" + "88b5"          // Ethernet
                + "5457" + "01" + "09" + "0030" + "0003" + "0140"         // magic version flags hlen cpu id
                + "81" + "12" + "fffffffb"                                 // common_flags preempt pid
                + "0102030405060708" + "0000000000000009"                  // time sequence
                + "0000000a" + "000b" + "000c" + "1122334455667788"        // lost orig tlvlen hash
                + "0000" + "0003" + "613a62" + "0001" + "0001" + "aa", hex);
        assertEquals(f.size(), b.length);
        assertEquals(62 + 12, b.length);
    }

    @Test
    void macAddresses() {
        assertEquals("02:74:77:69:72:65", MacAddress.TRACEWIRE.toString());
        assertTrue(MacAddress.TRACEWIRE.isLocallyAdministered());
        assertFalse(MacAddress.TRACEWIRE.isMulticast());
        for (String id : List.of("3d1219c7c4c5404aaa1f6d2a48adfda4", "vm", "", "host-β")) {
            MacAddress m = MacAddress.forHost(id);
            assertTrue(m.isLocallyAdministered(), m.toString());
            assertFalse(m.isMulticast(), m.toString());
            assertNotEquals(MacAddress.TRACEWIRE, m);
            assertEquals(m, MacAddress.forHost(id), "stable");
            assertEquals(m, MacAddress.parse(m.toString()));
            assertEquals(m, MacAddress.of(m.toBytes()));
        }
        assertNotEquals(MacAddress.forHost("a"), MacAddress.forHost("b"));
        // the test vectors of docs/wire-format.md, section 1
        assertEquals("16:85:86:91:6b:54", MacAddress.forHost("3d1219c7c4c5404aaa1f6d2a48adfda4").toString());
        assertEquals("a2:45:d8:87:53:54", MacAddress.forHost("vm").toString());
        MacAddress local = MacAddress.localHost();
        assertTrue(local.isLocallyAdministered() && !local.isMulticast(), local.toString());
    }

    @Test
    void encoderRefusesTooSmallBuffersWithoutWriting() {
        WireFrame f = randomFrame(new Random(1));
        ByteBuffer small = ByteBuffer.allocate(f.size() - 1);
        assertThrows(BufferOverflowException.class, () -> WireEncoder.encode(f, small));
        assertEquals(0, small.position());
    }

    @Test
    void tlvEqualityIsByValueAndImmutable() {
        byte[] v = {1, 2, 3};
        Tlv t = new Tlv(5, v);
        v[0] = 9;
        assertEquals(new Tlv(5, new byte[] {1, 2, 3}), t);
        t.value()[1] = 9;
        assertEquals(2, t.valueBuffer().get(1));
        assertNotEquals(new Tlv(6, new byte[] {1, 2, 3}), t);
        assertThrows(IllegalArgumentException.class, () -> new Tlv(65536, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new Tlv(1, new byte[65536]));
    }

    static byte[] valid() {
        WireHeader h = new WireHeader(1, 1, 0, 7, 0, 0, 1, 2, 3, 0, 13, 4);
        return WireEncoder.toBytes(new WireFrame(MacAddress.TRACEWIRE, SRC, h,
                List.of(Tlv.eventName("x:y"), new Tlv(1, new byte[] {1, 2}))));
    }

    static int errorOffset(byte[] b) {
        return assertThrows(WireFormatException.class, () -> WireDecoder.decode(ByteBuffer.wrap(b))).offset();
    }

    @Test
    void decoderErrorsCarryTheOffset() {
        byte[] ok = valid();
        assertEquals(75, ok.length);
        assertEquals(10, errorOffset(java.util.Arrays.copyOf(ok, 10)));
        assertEquals(19, errorOffset(java.util.Arrays.copyOf(ok, 19)));

        byte[] type = ok.clone();
        type[13] = (byte) 0xb6;
        assertEquals(12, errorOffset(type));

        byte[] magic = ok.clone();
        magic[15] = 'X';
        assertEquals(14, errorOffset(magic));

        byte[] version = ok.clone();
        version[16] = 0;
        assertEquals(16, errorOffset(version));

        byte[] shortHeader = ok.clone();
        shortHeader[19] = 40;
        assertEquals(18, errorOffset(shortHeader));

        byte[] longHeader = ok.clone();
        longHeader[19] = (byte) 200;
        assertEquals(18, errorOffset(longHeader));

        assertEquals(52, errorOffset(java.util.Arrays.copyOf(ok, 70)), "TLV area runs past the buffer");

        byte[] tlvPast = ok.clone();
        tlvPast[62 + 3] = 20; // the name TLV claims 20 bytes; the area has 9 after its head
        assertEquals(62, errorOffset(tlvPast));

        byte[] secondPast = ok.clone();
        secondPast[62 + 7 + 3] = 3;
        assertEquals(69, errorOffset(secondPast));

        byte[] headPast = ok.clone();
        headPast[14 + 39] = 13 - 6 + 2; // TLV area ends 2 bytes into the second TLV's head
        assertEquals(69, errorOffset(headPast));
    }

    @Test
    void decoderSkipsHeaderExtensionsAndTrailers() {
        byte[] ok = valid();
        // a version-2 sender with 8 more header bytes, and 4 bytes of FCS after the frame
        byte[] ext = new byte[ok.length + 12];
        System.arraycopy(ok, 0, ext, 0, 62);
        System.arraycopy(ok, 62, ext, 70, ok.length - 62);
        ext[16] = 2;
        ext[19] = 56;
        WireFrame f = WireDecoder.decode(ext);
        assertEquals(2, f.header().version());
        assertEquals("x:y", f.eventName());
        assertEquals(WireDecoder.decode(ok).tlvs(), f.tlvs());
    }

    @Test
    void fuzzedBuffersGiveAFrameOrWireFormatExceptionOnly() {
        Random rnd = new Random(42);
        List<byte[]> seeds = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            seeds.add(WireEncoder.toBytes(randomFrame(rnd)));
        }
        int frames = 0;
        int errors = 0;
        for (int i = 0; i < 200_000; i++) {
            byte[] b;
            if (i % 10 == 0) {
                b = new byte[rnd.nextInt(120)];
                rnd.nextBytes(b);
                if (b.length > 16 && rnd.nextBoolean()) {
                    b[12] = (byte) 0x88;
                    b[13] = (byte) 0xb5;
                    b[14] = 'T';
                    b[15] = 'W';
                }
            } else {
                byte[] seed = seeds.get(rnd.nextInt(seeds.size()));
                b = java.util.Arrays.copyOf(seed, rnd.nextInt(4) == 0 ? rnd.nextInt(seed.length + 8) : seed.length);
                int flips = 1 + rnd.nextInt(4);
                for (int k = 0; k < flips && b.length > 0; k++) {
                    int at = rnd.nextInt(2) == 0 ? rnd.nextInt(Math.min(b.length, 62)) : rnd.nextInt(b.length);
                    b[at] = (byte) rnd.nextInt(256);
                }
            }
            try {
                WireFrame f = WireDecoder.decode(ByteBuffer.wrap(b));
                assertTrue(f.tlvLength() <= b.length - 62, "TLVs fit the buffer");
                frames++;
            } catch (WireFormatException e) {
                assertTrue(e.offset() >= 0 && e.offset() <= b.length, e.getMessage());
                errors++;
            } catch (RuntimeException e) {
                fail("decoder threw " + e + " for " + HexFormat.of().formatHex(b), e);
            }
        }
        assertTrue(frames > 1000 && errors > 1000, frames + " frames, " + errors + " errors");
    }
}
