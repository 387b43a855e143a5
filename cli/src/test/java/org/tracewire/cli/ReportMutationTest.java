package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.input.FrameStream;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.wire.ContextFragment;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireHeader;

/**
 * Reliability of reading v2 pcapng files: a capture of real records with its context (formats,
 * symbols, printk strings, tasks, lost counts; a large format fragmented) is mutated file after
 * file — context and event frames flipped, cut, extended, their fragment heads and item lengths
 * made to lie, kinds made unknown, formats contradicted, symbol floods and oversized messages
 * inserted, frames duplicated and reordered — and every file goes through {@link PcapngInput} and
 * the renderer as {@code report} uses them (text and JSON fields), through a {@link FrameStream}
 * learning the context as it goes (the app's live decoding), and every tenth through
 * {@code report} itself. Allowed outcomes: an {@link IOException} naming the file when it holds no
 * usable capture context, skipped and counted frames, fallback text. Never another exception; heap
 * after each file bounded; no file takes long.
 */
class ReportMutationTest {
    @TempDir
    Path dir;

    /** The frames of the base capture, kind by frame. */
    private record Frame(long time, byte[] data) {
        int kind() {
            return data.length > 1 ? data[1] & 0x0f : -1;
        }
    }

    @Test
    void mutatedFramesGiveSkipsAndClearErrorsOnly() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 400);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        Path base = ContextPcapng.write(dir.resolve("base.pcapng"), recs, src, Map.of(50, 4L, 300, 9L));
        List<Frame> frames = new ArrayList<>();
        try (PcapngPacketReader r = new PcapngPacketReader(base)) {
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                frames.add(new Frame(p.timeNs(), p.data()));
            }
        }
        // a large message (fragmented) and named symbols, so fragments and SYMBOLS items get mutated too
        FrameEncoder extra = new FrameEncoder();
        EventFormat sw = recs.stream().map(EventRecord::format).filter(f -> f.name().equals("sched_switch")).findFirst()
                .orElseThrow();
        String bigText = "x".repeat(6000);
        List<Frame> big = new ArrayList<>();
        for (ByteBuffer b : extra.context(ContextMessage.builder(FrameKind.CAPTURE)
                .text(ContextMessage.CAPTURE_ID, "fixture capture").text(ContextMessage.CAPTURE_EVENTS, bigText).build(),
                WireHeader.NO_CPU, true, frames.get(0).time())) {
            big.add(new Frame(frames.get(0).time(), bytes(b)));
        }
        ContextMessage.Builder syms = ContextMessage.builder(FrameKind.SYMBOLS);
        for (int i = 0; i < 40; i++) {
            syms.symbol(0xffffffff81000000L + i * 64, 0xffffffff81000000L + i * 64, 64, "sym_" + i + (i % 5 == 0 ? " [mod]" : ""));
        }
        for (ByteBuffer b : extra.context(syms.build(), WireHeader.NO_CPU, true, frames.get(0).time())) {
            big.add(new Frame(frames.get(0).time(), bytes(b)));
        }
        frames.addAll(2, big);
        assertTrue(big.size() > 5, "the large message is fragmented: " + big.size());

        Random rnd = new Random(20261124);
        Map<String, Integer> outcomes = new TreeMap<>();
        int mutatedContext = 0;
        int mutatedEvents = 0;
        long maxHeap = 0;
        long slowestMs = 0;
        int files = 0;
        Runtime rt = Runtime.getRuntime();
        while (mutatedContext < 10_000 || mutatedEvents < 10_000) {
            List<Frame> copy = new ArrayList<>(frames);
            int n = 20 + rnd.nextInt(60);
            List<Integer> contextAt = new ArrayList<>();
            for (int i = 0; i < copy.size(); i++) {
                if (copy.get(i).kind() != 0) {
                    contextAt.add(i);
                }
            }
            for (int k = 0; k < n; k++) {
                // half the mutations on context frames (a capture has far fewer of them than of events)
                int i = k % 2 == 0 ? contextAt.get(rnd.nextInt(contextAt.size())) : rnd.nextInt(copy.size());
                Frame f = copy.get(i);
                Frame m = mutate(f, rnd, sw, copy);
                if (m == null) {
                    continue;
                }
                copy.set(i, m);
                if (f.kind() == 0) {
                    mutatedEvents++;
                } else {
                    mutatedContext++;
                }
            }
            Path file = dir.resolve("m" + (files % 4) + ".pcapng");
            try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host())) {
                int iface = w.addInterface(InterfaceInfo.tracewire("tracewire", "mutated", 65535));
                for (Frame f : copy) {
                    w.writePacket(iface, f.time(), ByteBuffer.wrap(f.data()), Math.max(f.data().length, 0), 0);
                }
            }
            long start = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            outcomes.merge(read(file), 1, Integer::sum);
            if (files % 10 == 0) {
                outcomes.merge("report command: " + command(file), 1, Integer::sum);
            }
            slowestMs = Math.max(slowestMs, (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - start) / 1_000_000);
            if (files % 25 == 0) {
                System.gc();
                maxHeap = Math.max(maxHeap, rt.totalMemory() - rt.freeMemory());
            }
            files++;
        }
        System.out.printf("mutation: %d files, %d context and %d event frames mutated; outcomes %s; max heap after GC "
                + "%d MB, slowest file %d ms CPU%n", files, mutatedContext, mutatedEvents, outcomes, maxHeap >> 20, slowestMs);
        assertTrue(maxHeap < 256L << 20, "heap " + (maxHeap >> 20) + " MB");
        assertTrue(slowestMs < 5_000, "slowest file " + slowestMs + " ms");
        assertTrue(outcomes.getOrDefault("read", 0) > files / 2, "most files still read: " + outcomes);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /** One mutation of a frame, or null when none applies. */
    private static Frame mutate(Frame f, Random rnd, EventFormat sw, List<Frame> all) {
        byte[] d = f.data().clone();
        ByteBuffer b = ByteBuffer.wrap(d);
        boolean context = f.kind() > 0 && d.length >= WireHeader.SIZE + ContextFragment.HEAD;
        int op = d.length < WireHeader.SIZE + 8 ? 2 : rnd.nextInt(context ? 14 : 10);
        switch (op) {
            case 0 -> d[rnd.nextInt(Math.min(d.length, WireHeader.SIZE))] ^= (byte) (1 << rnd.nextInt(8));
            case 1 -> d = Arrays.copyOf(d, rnd.nextInt(d.length + 1));
            case 2 -> {
                byte[] e = Arrays.copyOf(d, d.length + 1 + rnd.nextInt(300));
                for (int i = d.length; i < e.length; i++) {
                    e[i] = (byte) rnd.nextInt(256);
                }
                d = e;
            }
            case 3 -> {
                for (int i = 0; i < 1 + rnd.nextInt(8); i++) {
                    d[rnd.nextInt(d.length)] = (byte) rnd.nextInt(256);
                }
            }
            case 4 -> d[1] = (byte) ((d[1] & 0xf0) | (6 + rnd.nextInt(10)));             // reserved kind
            case 5 -> d[0] = (byte) (rnd.nextBoolean() ? 1 : 0x54);                        // other versions
            case 6 -> {                                                                     // body words that point anywhere
                if (d.length >= WireHeader.SIZE + 12) {
                    b.putInt(WireHeader.SIZE + 8 + 4 * rnd.nextInt((d.length - WireHeader.SIZE - 8) / 4),
                            rnd.nextBoolean() ? rnd.nextInt() : (0xffff << 16) | rnd.nextInt(0x10000));
                }
            }
            case 7 -> {                                                                     // an event frame becomes another id
                if (d.length >= WireHeader.SIZE + 2) {
                    b.order(ByteOrder.LITTLE_ENDIAN).putShort(WireHeader.SIZE, (short) (rnd.nextBoolean()
                            ? sw.id() : rnd.nextInt(0x10000)));
                }
            }
            case 8 -> {                                                                     // duplicated elsewhere
                all.add(rnd.nextInt(all.size()), new Frame(f.time(), d.clone()));
            }
            case 9 -> {                                                                     // swapped with another frame
                int j = rnd.nextInt(all.size());
                Frame o = all.get(j);
                all.set(j, new Frame(o.time(), d.clone()));
                d = o.data().clone();
            }
            case 10 -> {                                                                    // fragment head lies
                int at = WireHeader.SIZE;
                switch (rnd.nextInt(5)) {
                    case 0 -> b.putShort(at + 6, (short) 0);
                    case 1 -> b.putShort(at + 4, (short) (b.getShort(at + 6) + rnd.nextInt(3)));
                    case 2 -> b.putInt(at + 8, rnd.nextBoolean() ? 0x7fff_ffff : rnd.nextInt(1 << 25));
                    case 3 -> b.putShort(at + 6, (short) (2 + rnd.nextInt(60000)));
                    default -> b.putInt(at, rnd.nextInt());
                }
            }
            case 11 -> {                                                                    // an item length lies
                int at = WireHeader.SIZE + ContextFragment.HEAD;
                if (d.length >= at + ContextMessage.ITEM_HEAD) {
                    b.putInt(at + 2, rnd.nextBoolean() ? -1 - rnd.nextInt(1000) : rnd.nextInt(d.length));
                }
            }
            case 12 -> {                                                                    // a contradictory format
                d = contextFrame(ContextMessage.builder(FrameKind.FORMAT).u16(ContextMessage.FORMAT_ID, sw.id())
                        .text(ContextMessage.FORMAT_NAME, rnd.nextBoolean() ? "sched:sched_switch" : "x")
                        .text(ContextMessage.FORMAT_TEXT, rnd.nextBoolean() ? "name: sched_switch\nID: " + sw.id()
                                + "\nformat:\n\tfield:int common_pid;\toffset:0;\tsize:400;\tsigned:1;\n\tfield:char x[9999];\toffset:4;\tsize:9999;\tsigned:0;\n\nprint fmt: \"%s\", REC->x\n"
                                : "garbage " + rnd.nextLong()).build(), rnd);
            }
            default -> {                                                                    // symbol flood or an unknown item
                ContextMessage.Builder s = ContextMessage.builder(rnd.nextBoolean() ? FrameKind.SYMBOLS : FrameKind.PROCESS);
                for (int i = 0; i < 2000; i++) {
                    if (rnd.nextInt(10) == 0) {
                        s.bytes(1000 + rnd.nextInt(1000), new byte[rnd.nextInt(5)]);
                    } else {
                        s.symbol(rnd.nextLong(), rnd.nextLong(), rnd.nextInt(), "flood_" + i);
                        s.task(rnd.nextInt(), rnd.nextInt(), "t" + i);
                    }
                }
                List<ByteBuffer> fs = new FrameEncoder().context(s.build(), WireHeader.NO_CPU, true, f.time());
                d = bytes(fs.get(rnd.nextInt(fs.size())));
                if (rnd.nextBoolean()) {
                    for (ByteBuffer x : fs) {
                        all.add(rnd.nextInt(all.size()), new Frame(f.time(), bytes(x)));
                    }
                }
            }
        }
        return new Frame(f.time(), d);
    }

    private static byte[] contextFrame(ContextMessage m, Random rnd) {
        FrameEncoder e = new FrameEncoder();
        return bytes(e.context(m, WireHeader.NO_CPU, true, 1).get(0));
    }

    /**
     * What reading a file as {@code report} does gave: "read" or "refused"; anything else fails the
     * test. The frames also go through a {@link FrameStream} learning its context as it goes, as the
     * app's live capture decodes them.
     */
    private static String read(Path file) {
        FrameStream live = new FrameStream();
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            long n = 0;
            for (PcapngPacketReader.Packet p = r.next(); p != null; p = r.next()) {
                RecordInput.Event e = live.packet(p, ++n);
                if (e != null && e.renderer().line(e.record()).isEmpty()) {
                    fail("empty line");
                }
            }
            live.summary();
        } catch (IOException | RuntimeException e) {
            throw new AssertionError("stream " + file + ": unexpected " + e, e);
        }
        PcapngInput in;
        try {
            in = PcapngInput.open(file);
        } catch (IOException e) {
            assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
            return "refused";
        } catch (RuntimeException e) {
            throw new AssertionError("open " + file + ": unexpected " + e, e);
        }
        try (in) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                EventRecord r = e.record();
                String line = e.renderer().line(r);
                if (line.isEmpty()) {
                    fail("empty line");
                }
                e.renderer().comm(r.pid());
                for (Field f : r.format().fields()) {
                    try {
                        switch (f.kind()) {
                            case INTEGER, POINTER -> r.integer(f);
                            case CHAR_ARRAY, DYNAMIC_STRING -> r.string(f);
                            default -> r.bytes(f);
                        }
                    } catch (RecordException expected) {
                        // a field outside a mutated record: report writes null
                    }
                }
            }
            in.summary();
            WireContext c = in.context();
            assertTrue(c.tasks().size() <= WireContext.MAX_ENTRIES && c.problems().size() <= WireContext.MAX_PROBLEMS);
            return "read";
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (RuntimeException e) {
            throw new AssertionError("read " + file + ": unexpected " + e, e);
        }
    }

    /** {@code report} and {@code report --json} of a file: exit 0, or 1 with a one-line reason naming it. */
    private static String command(Path file) {
        for (String json : new String[] {"--json", null}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            String[] args = json == null ? new String[] {"report", file.toString()} : new String[] {"report", json, file.toString()};
            int rc = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String e = err.toString(StandardCharsets.UTF_8);
            if (rc == 1) {
                assertTrue(e.startsWith("tracewire report: " + file + ": no tracewire capture context"), e);
                return "refused";
            }
            assertEquals(0, rc, e);
            for (String l : e.lines().toList()) {
                assertTrue(l.startsWith("report: "), l);
            }
        }
        return "read";
    }
}
