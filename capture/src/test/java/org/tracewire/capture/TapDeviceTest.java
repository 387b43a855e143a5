package org.tracewire.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;
import org.tracewire.testing.Tshark;

class TapDeviceTest {
    @Test
    void rejectsBadNames() {
        assertThrows(IllegalArgumentException.class, () -> TapDevice.checkName("this-name-is-too-long"));
        assertThrows(IllegalArgumentException.class, () -> TapDevice.checkName("tw 0"));
        assertThrows(IllegalArgumentException.class, () -> TapDevice.checkName("../x"));
        TapDevice.checkName("tw0");
    }

    /** Frames written to the TAP arrive at tshark capturing on it, and the interface goes away on close. */
    @Test
    @Tag("live")
    @Tag("tshark")
    void framesReachTsharkAndTheInterfaceIsRemovedOnClose() throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTool("tshark");
        String name = "twt" + (ProcessHandle.current().pid() % 100000);
        int frames = 50;
        try (TapDevice tap = TapDevice.create(name)) {
            assertTrue(Files.exists(Path.of("/sys/class/net", name)));
            IOException taken = assertThrows(IOException.class, () -> TapDevice.create(name));
            assertTrue(taken.getMessage().contains("already exists"), taken.getMessage());
            Path out = Files.createTempFile("tap", ".txt");
            Process tshark = Tshark.startCapture(List.of("-i", name, "-c", Integer.toString(frames), "-T", "fields",
                    "-e", "eth.type", "-e", "frame.len"), out, Files.createTempFile("tap", ".err"));
            ByteBuffer frame = ByteBuffer.allocateDirect(64);
            for (int i = 0; i < frames; i++) {
                frame.clear();
                frame.put(new byte[] {2, 0x74, 0x77, 0, 0, 1, 2, 0x74, 0x77, 0, 0, 2, (byte) 0x88, (byte) 0xb5});
                frame.put("tracewire".getBytes(StandardCharsets.US_ASCII));
                frame.putInt(i);
                frame.flip();
                tap.write(frame);
            }
            assertTrue(tshark.waitFor(20, TimeUnit.SECONDS), "tshark did not see " + frames + " frames");
            List<String> lines = Files.readAllLines(out);
            Files.delete(out);
            assertEquals(frames, lines.size());
            assertTrue(lines.stream().allMatch(l -> l.startsWith("0x88b5")), lines.toString());
        }
        assertFalse(Files.exists(Path.of("/sys/class/net", name)), "interface left behind");
    }
}
