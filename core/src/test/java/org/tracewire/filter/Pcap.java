package org.tracewire.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes a classic little-endian pcap file of Ethernet frames (test helper). */
final class Pcap {
    private Pcap() {
    }

    static void write(Path file, List<byte[]> frames) throws IOException {
        int size = 24;
        for (byte[] f : frames) {
            size += 16 + f.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        int i = 0;
        for (byte[] f : frames) {
            b.putInt(1_700_000_000 + i).putInt(0).putInt(f.length).putInt(f.length).put(f);
            i++;
        }
        Files.write(file, b.array());
    }
}
