package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.MacAddress;
import org.tracewire.wire.WireHeader;

/**
 * Expert infos and the generic fallback: an event missing from the tables (plugin generated for
 * sched:sched_switch only), frames from other formats, lost events with unknown count, truncated
 * events; and the EtherType preference.
 */
@Tag("tshark")
class ExpertTest {
    static Path plugin;
    static Path pcap;
    static EventRecord switchRec;
    static EventRecord other;

    @BeforeAll
    static void setUp() throws Exception {
        Prerequisites.requireTool("tshark");
        DissectorGenerator.Result r = new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(List.of(Tools.catalog().byName("sched:sched_switch")));
        plugin = Tools.tempDir().resolve("switch-only.lua");
        Files.writeString(plugin, r.lua());
        for (EventRecord rec : Frames.fixtureRecords()) {
            if (switchRec == null && rec.format().fullName().equals("sched:sched_switch")) {
                switchRec = rec;
            }
            if (other == null && rec.format().fullName().equals("sched:sched_wakeup")) {
                other = rec;
            }
        }
        List<byte[]> frames = new ArrayList<>();
        frames.add(frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash()), switchRec, 0, 0));
        frames.add(frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash()), other, 0, 0));
        frames.add(frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, 0x1234L), switchRec, 0, 0));
        frames.add(frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash()), switchRec, 0,
                WireHeader.FLAG_LOST_UNKNOWN));
        frames.add(frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash(), 62 + 40), switchRec, 0, 0));
        byte[] b6 = frame(new FrameEncoder(MacAddress.TRACEWIRE, Frames.SRC, Frames.hash()), switchRec, 0, 0);
        b6[13] = (byte) 0xb6;
        frames.add(b6);
        pcap = Tools.tempDir().resolve("experts.pcapng");
        try (PcapngWriter w = PcapngWriter.create(pcap, new SectionInfo("t", "Linux", "t"))) {
            int ifc = w.addInterface(InterfaceInfo.ethernet("t", "t", 65535));
            for (byte[] f : frames) {
                w.writePacket(ifc, 1, f);
            }
        }
    }

    static byte[] frame(FrameEncoder enc, EventRecord r, long lost, int flags) {
        ByteBuffer out = ByteBuffer.allocate(4096);
        int n = enc.encode(r, 0, 0, lost, 1, flags, out);
        return java.util.Arrays.copyOf(out.array(), n);
    }

    static List<String> frames(String filter, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(extra));
        args.addAll(List.of("-Y", filter, "-T", "fields", "-e", "frame.number"));
        Tools.Run r = Tools.tshark(plugin, pcap, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        return r.out().lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void expertsAreSetOnTheRightFrames() throws Exception {
        assertEquals(List.of("2"), frames("tracewire.expert.unknown_event"));
        assertEquals(List.of("3"), frames("tracewire.expert.other_formats"));
        assertEquals(List.of("4"), frames("tracewire.expert.lost_unknown"));
        assertEquals(List.of("5"), frames("tracewire.expert.truncated"));
        assertEquals(List.of(), frames("_ws.lua.error || tracewire.expert.internal || tracewire.expert.malformed"));
        assertEquals(List.of(), frames("tracewire.expert.other_formats", "-o", "tracewire.check_hash:FALSE"));
    }

    @Test
    void unknownEventsShowByNameWithRawTlvs() throws Exception {
        Tools.Run r = Tools.tshark(plugin, pcap, "-Y", "frame.number == 2", "-T", "fields", "-e", "tracewire.event",
                "-e", "_ws.col.Info", "-e", "tracewire.tlv.value");
        String[] p = r.out().strip().split("\t");
        assertEquals("sched:sched_wakeup", p[0]);
        assertTrue(p[1].startsWith("sched_wakeup: tlv1=ARRAY["), p[1]);
        assertTrue(p.length > 2 && !p[2].isEmpty(), r.out());
    }

    @Test
    void etherTypeIsAPreference() throws Exception {
        assertEquals(List.of(), frames("frame.number == 6 && tracewire"));
        assertEquals(List.of("6"), frames("frame.number == 6 && tracewire", "-o", "tracewire.ethertype:34998")); // 0x88B6 (Lua uint prefs are decimal)
    }
}
