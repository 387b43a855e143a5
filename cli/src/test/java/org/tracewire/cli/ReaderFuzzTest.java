package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.RecordInput;
import org.tracewire.pcapng.PcapngFormatException;
import org.tracewire.pcapng.PcapngMerger;
import org.tracewire.pcapng.PcapngPacketReader;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracedat.TraceDatBuffer;
import org.tracewire.tracedat.TraceDatException;
import org.tracewire.tracedat.TraceDatFile;

/**
 * Readers are total functions of their input: 10,000 mutated pcapng files and 5,000 mutated
 * trace.dat files go through the reader API as {@code report} uses it ({@link PcapngPacketReader}
 * packet by packet, then {@link RecordInput}: every event rendered, {@link RecordInput#failure()});
 * 250 of the pcapng and 200 of the trace.dat files also through {@link Main#run} ({@code report},
 * {@code import}).
 *
 * <p>Seeds are the project's own files: a pcapng of real sub-buffer records with their context
 * ({@link ContextPcapng}, the capture's writer), the same merged with another capture (two
 * interfaces, {@code merge}), the checked-in trace-cmd trace.dat (v7, zstd) and a v6 trace.dat
 * written from the pcapng by {@code export}. Mutations: bit flips; length fields (a block's head or
 * trailing length, a packet's captured length, a trace.dat word or page commit) set to 0, 1, 12,
 * 0x7FFFFFFC–0x80000000, 0xFFFFFFFC–0xFFFFFFFF or random; option lengths at 0 or 0xFFFF; blocks
 * and pages duplicated, reordered and deleted; the file cut at a random byte.
 *
 * <p>Allowed outcomes: the file reads; {@link PcapngFormatException} from the packet reader;
 * {@link java.io.IOException} (naming the file) or {@link IllegalArgumentException} (neither
 * format) from {@link RecordInput#open}; {@link TraceDatException} from a trace.dat. Anything else
 * (an {@link OutOfMemoryError}, an index out of bounds...) fails with the mutation's number; each
 * input runs on a watchdog thread and fails when it takes more than 10 s. Through the commands: exit
 * codes 0 or 1 only (1 exactly when something was wrong, with a message), and neither standard
 * output nor standard error holds a control character other than newline and tab. The random
 * streams are seeded, so a failure reproduces.
 */
class ReaderFuzzTest {
    private static final long SEED = 0x66757a7a2d726561L;
    private static final long[] SPECIAL = {0, 1, 12, 0x7FFFFFFCL, 0x7FFFFFFDL, 0x7FFFFFFEL, 0x7FFFFFFFL, 0x80000000L,
        0xFFFFFFFCL, 0xFFFFFFFDL, 0xFFFFFFFEL, 0xFFFFFFFFL};
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static ExecutorService watchdog;
    private static volatile long cpuNs;
    private static long commandCpuNs;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        watchdog = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-input");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void stop() {
        watchdog.shutdownNow();
    }

    @Test
    void mutatedFilesReadOrFailCleanly() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path one = ContextPcapng.write(dir.resolve("seed1.pcapng"), recs.subList(0, 60),
                ContextPcapng.snapshot(recs.subList(0, 60)), Map.of(30, 3L));
        Path two = ContextPcapng.write(dir.resolve("seed2.pcapng"), recs.subList(60, 100),
                ContextPcapng.snapshot(recs.subList(60, 100)), Map.of());
        Path merged = dir.resolve("seed3.pcapng");
        PcapngMerger.merge(List.of(one, two), merged, SectionInfo.host());
        Path v6 = dir.resolve("seed-v6.dat");
        ReportCommandTest.Result exp = ReportCommandTest.cli("export", one.toString(), "-o", v6.toString());
        assertEquals(0, exp.rc(), exp.err());
        List<byte[]> pcapngSeeds = List.of(Files.readAllBytes(one), Files.readAllBytes(merged));
        byte[] v7 = Files.readAllBytes(ReportCommandTest.DAT);
        List<byte[]> datSeeds = List.of(v7, Files.readAllBytes(v6));
        List<long[]> v6Pages = pages(v6); // page offsets of the uncompressed file

        // every seed reads whole
        for (byte[] s : pcapngSeeds) {
            assertEquals("read", readPcapng(write("s.pcapng", s)));
        }
        for (byte[] s : datSeeds) {
            assertEquals("read", readAny(write("s.dat", s)));
        }

        Map<String, Integer> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        cpuNs = 0;
        SplittableRandom rnd = new SplittableRandom(SEED);
        Path p = dir.resolve("m.pcapng");
        for (int i = 0; i < 10_000; i++) {
            byte[] m = mutatePcapng(pcapngSeeds.get(i % 2), rnd);
            Files.write(p, m);
            String what = "pcapng mutation " + i + " (seed " + Long.toHexString(SEED) + ")";
            outcomes.merge("pcapng " + guarded(what, () -> readPcapng(p)), 1, Integer::sum);
            if (i % 40 == 0) {
                outcomes.merge("pcapng report rc " + command(what, "report", p.toString()), 1, Integer::sum);
            }
        }
        long t1 = System.nanoTime();
        long cpuPcapng = cpuNs;
        Path d = dir.resolve("m.dat");
        Path out = dir.resolve("imported.pcapng");
        for (int i = 0; i < 5_000; i++) {
            boolean isV6 = i % 2 == 1;
            byte[] m = mutateTraceDat(datSeeds.get(i % 2), isV6 ? v6Pages : List.of(), rnd);
            Files.write(d, m);
            String what = "trace.dat mutation " + i + " (seed " + Long.toHexString(SEED) + ")";
            outcomes.merge("trace.dat " + guarded(what, () -> readAny(d)), 1, Integer::sum);
            if (i % 25 == 0) {
                outcomes.merge("trace.dat " + (i % 50 == 0 ? "report" : "import") + " rc " + (i % 50 == 0
                        ? command(what, "report", "--no-live-kernel", d.toString())
                        : command(what, "import", "--no-live-kernel", d.toString(), "-w", out.toString())), 1, Integer::sum);
            }
        }
        System.out.printf("reader fuzz (seed %x): %s; pcapng %d ms (%d ms CPU), trace.dat %d ms (%d ms CPU), "
                + "of which commands %d ms CPU%n", SEED, outcomes, (t1 - t0) / 1_000_000, cpuPcapng / 1_000_000,
                (System.nanoTime() - t1) / 1_000_000, (cpuNs - cpuPcapng) / 1_000_000, commandCpuNs / 1_000_000);
        int pcapngFiles = outcomes.entrySet().stream().filter(e -> e.getKey().startsWith("pcapng ")
                && !e.getKey().contains(" rc ")).mapToInt(Map.Entry::getValue).sum();
        int datFiles = outcomes.entrySet().stream().filter(e -> e.getKey().startsWith("trace.dat ")
                && !e.getKey().contains(" rc ")).mapToInt(Map.Entry::getValue).sum();
        assertEquals(10_000, pcapngFiles);
        assertEquals(5_000, datFiles);
        // the mutations reach every outcome: some files still read whole, some stop at a block, some are refused
        for (String o : List.of("pcapng read", "pcapng stopped", "pcapng refused", "trace.dat read", "trace.dat refused")) {
            assertTrue(outcomes.getOrDefault(o, 0) > 100, o + ": " + outcomes);
        }
    }

    /** Runs one input on the watchdog thread: its outcome, or a test failure for any other throwable or a hang. */
    private static String guarded(String what, Callable<String> body) {
        Future<String> f = watchdog.submit(() -> {
            long c0 = THREADS.getCurrentThreadCpuTime();
            try {
                return body.call();
            } finally {
                cpuNs += THREADS.getCurrentThreadCpuTime() - c0;
            }
        });
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new AssertionError(what + ": still running after 10 s");
        } catch (ExecutionException e) {
            throw new AssertionError(what + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(what + ": interrupted");
        }
    }

    /** A command on a mutated file through {@link Main#run}: its exit code, checked (0 or 1, escaped output). */
    private static int command(String what, String... args) {
        ReportCommandTest.Result r = guardedCommand(what, args);
        assertTrue(r.rc() == 0 || r.rc() == 1, what + ": " + String.join(" ", args) + " exit code " + r.rc() + ": " + r.err());
        if (r.rc() == 1) {
            assertTrue(!r.err().isBlank(), what + ": exit code 1 without a message");
        }
        for (String s : List.of(r.out(), r.err())) {
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f)) {
                    fail(what + ": " + args[0] + " wrote control character " + (int) c + " at " + k);
                }
            }
        }
        return r.rc();
    }

    private static ReportCommandTest.Result guardedCommand(String what, String... args) {
        ReportCommandTest.Result[] r = new ReportCommandTest.Result[1];
        long c0 = cpuNs;
        guarded(what + " through " + args[0], () -> {
            r[0] = ReportCommandTest.cli(args);
            return "";
        });
        commandCpuNs += cpuNs - c0;
        return r[0];
    }

    /**
     * A pcapng as {@code report} reads it: every packet, then the events rendered. "read" (whole),
     * "stopped" (events up to a damaged block, then {@link RecordInput#failure()}) or "refused"
     * (an error naming the file).
     */
    private static String readPcapng(Path file) throws IOException {
        try (PcapngPacketReader r = new PcapngPacketReader(file)) {
            try {
                while (r.next() != null) {
                    // every packet
                }
            } catch (PcapngFormatException e) {
                assertTrue(e.getMessage().matches("pcapng offset \\d+ \\(block \\d+\\): .+"), e.getMessage());
                assertTrue(e == r.failure());
                try {
                    r.next();
                    fail("a reader goes on after " + e.getMessage());
                } catch (PcapngFormatException again) {
                    assertTrue(again == e, "the same error again");
                }
            }
        }
        return readAny(file);
    }

    /** A file through {@link RecordInput} as {@code report} uses it: "read", "stopped" or "refused". */
    private static String readAny(Path file) throws IOException {
        RecordInput in;
        try {
            in = RecordInput.open(file, null);
        } catch (IOException | IllegalArgumentException e) {
            assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
            return "refused";
        } catch (TraceDatException e) {
            assertTrue(e.getMessage().matches("(?s)trace\\.dat offset -?\\d+: .+"), e.getMessage());
            return "refused";
        }
        try (in) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                assertTrue(!e.renderer().line(e.record()).isEmpty());
            }
            in.summary();
            return in.failure() == null ? "read" : "stopped";
        } catch (TraceDatException e) {
            assertTrue(e.getMessage().matches("(?s)trace\\.dat offset -?\\d+: .+"), e.getMessage());
            return "stopped";
        }
    }

    private Path write(String name, byte[] b) throws IOException {
        return Files.write(dir.resolve(name), b);
    }

    /** The file offsets of a trace.dat's whole pages of uncompressed CPU data, with the page size. */
    private static List<long[]> pages(Path dat) throws IOException {
        List<long[]> r = new ArrayList<>();
        try (TraceDatFile f = TraceDatFile.open(dat)) {
            for (TraceDatBuffer b : f.buffers()) {
                for (TraceDatBuffer.CpuData c : b.cpus()) {
                    for (long o = 0; o + b.pageSize() <= c.size(); o += b.pageSize()) {
                        r.add(new long[] {c.offset() + o, b.pageSize()});
                    }
                }
            }
        }
        assertTrue(r.size() >= 2, "pages of the v6 seed: " + r.size());
        return r;
    }

    // ------------------------------------------------------------------ pcapng mutations

    /** The blocks of a little-endian pcapng (the rest, when a length does not fit, as one piece). */
    static List<byte[]> blocks(byte[] file) {
        List<byte[]> r = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int o = 0;
        while (o < file.length) {
            int len = o + 8 <= file.length ? b.getInt(o + 4) : -1;
            if (len < 12 || len > file.length - o) {
                len = file.length - o;
            }
            r.add(Arrays.copyOfRange(file, o, o + len));
            o += len;
        }
        return r;
    }

    static byte[] mutatePcapng(byte[] seed, SplittableRandom rnd) {
        List<byte[]> bl = blocks(seed);
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n && !bl.isEmpty(); k++) {
            int i = rnd.nextInt(bl.size());
            byte[] x = bl.get(i).clone();
            ByteBuffer w = ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN);
            int type = x.length >= 4 ? w.getInt(0) : -1;
            switch (rnd.nextInt(10)) {
                case 0 -> x[rnd.nextInt(x.length)] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> putSpecial(w, 4, rnd);                                    // head length
                case 2 -> putSpecial(w, x.length - 4, rnd);                         // trailing length
                case 3 -> {                                                         // both lengths agree on a lie
                    long v = special(rnd);
                    putInt(w, 4, v);
                    putInt(w, x.length - 4, v);
                }
                case 4 -> {                                                         // captured or original length
                    if (type == 6) {
                        putSpecial(w, rnd.nextBoolean() ? 20 : 24, rnd);
                    } else {
                        putSpecial(w, 4 * rnd.nextInt(Math.max(1, x.length / 4)), rnd);
                    }
                }
                case 5 -> {                                                         // an option length
                    int at = 4 * rnd.nextInt(Math.max(1, x.length / 4)) + 2;
                    if (at + 2 <= x.length) {
                        w.putShort(at, (short) (rnd.nextBoolean() ? 0 : 0xffff));
                    }
                }
                case 6 -> bl.add(rnd.nextInt(bl.size() + 1), bl.get(rnd.nextInt(bl.size())).clone()); // duplicated
                case 7 -> {                                                         // reordered
                    Collections.swap(bl, i, rnd.nextInt(bl.size()));
                    continue;
                }
                case 8 -> {                                                         // deleted
                    bl.remove(i);
                    continue;
                }
                default -> putSpecial(w, 4 * rnd.nextInt(Math.max(1, x.length / 4)), rnd);   // any word
            }
            bl.set(i, x);
        }
        int size = bl.stream().mapToInt(a -> a.length).sum();
        ByteBuffer all = ByteBuffer.allocate(size);
        bl.forEach(all::put);
        byte[] r = all.array();
        if (rnd.nextInt(4) == 0 && r.length > 0) {                                  // cut short
            r = Arrays.copyOf(r, rnd.nextInt(r.length));
        }
        return r;
    }

    private static long special(SplittableRandom rnd) {
        return rnd.nextInt(6) == 0 ? rnd.nextLong() : SPECIAL[rnd.nextInt(SPECIAL.length)];
    }

    private static void putSpecial(ByteBuffer w, int at, SplittableRandom rnd) {
        putInt(w, at, special(rnd));
    }

    private static void putInt(ByteBuffer w, int at, long v) {
        if (at >= 0 && at + 4 <= w.capacity()) {
            w.putInt(at, (int) v);
        }
    }

    // ------------------------------------------------------------------ trace.dat mutations

    /**
     * A mutated trace.dat: words anywhere set to the special lengths, bits flipped, pages (of an
     * uncompressed file, at {@code pages}) duplicated over others, swapped or their commit word set,
     * ranges deleted, the file cut short.
     */
    static byte[] mutateTraceDat(byte[] seed, List<long[]> pages, SplittableRandom rnd) {
        byte[] b = seed.clone();
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n && b.length > 8; k++) {
            ByteBuffer w = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            int op = rnd.nextInt(pages.isEmpty() ? 5 : 9);
            switch (op) {
                case 0 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> putSpecial(w, rnd.nextInt(b.length - 4), rnd);
                case 2 -> {
                    int at = rnd.nextInt(b.length - 8);
                    w.putLong(at, rnd.nextBoolean() ? special(rnd) : -special(rnd));
                }
                case 3 -> {                                                         // a range deleted
                    int at = rnd.nextInt(b.length);
                    int len = 1 + rnd.nextInt(Math.min(4096, b.length - at));
                    byte[] o = new byte[b.length - len];
                    System.arraycopy(b, 0, o, 0, at);
                    System.arraycopy(b, at + len, o, at, b.length - at - len);
                    b = o.length == 0 ? new byte[] {0} : o;
                }
                case 4 -> b = Arrays.copyOf(b, Math.max(1, rnd.nextInt(b.length)));   // cut short
                default -> {
                    long[] pg = pages.get(rnd.nextInt(pages.size()));
                    long[] other = pages.get(rnd.nextInt(pages.size()));
                    int size = (int) pg[1];
                    if (pg[0] + size > b.length || other[0] + size > b.length) {
                        continue;
                    }
                    int at = (int) pg[0];
                    int from = (int) other[0];
                    switch (op) {
                        case 5 -> System.arraycopy(b, from, b, at, size);          // a page duplicated over another
                        case 6 -> {                                                 // two pages swapped
                            byte[] t = Arrays.copyOfRange(b, at, at + size);
                            System.arraycopy(b, from, b, at, size);
                            System.arraycopy(t, 0, b, from, size);
                        }
                        case 7 -> putSpecial(w, at + 8, rnd);                       // the page's commit
                        default -> putSpecial(w, at + 16 + 4 * rnd.nextInt(16), rnd); // a record header
                    }
                }
            }
        }
        return b;
    }
}
