package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.RecordInput;

/**
 * Stores of mutated files: the checked-in ring-buffer fixture's pcapng and the checked-in
 * trace.dat, bytes overwritten and files cut (a class of its own: its ~50 s run beside the other
 * store tests in the second fork).
 */
class StoreMutationTest {
    @TempDir
    Path dir;

    /**
     * Mutated inputs (bytes overwritten, files cut): each gives a clear error naming the file, or a
     * store of exactly what the reader yields (complete), or a partial store that says where it
     * stopped; never a crash or a hang (20 s per input). {@code -Dtracewire.fuzz.store=N} sets the
     * count of pcapng inputs, two thirds of it trace.dat (default 60 and 40; docs/store.md gives a 10,000 run).
     */
    @Test
    void mutatedFilesGiveAClearErrorOrAStoreOfWhatTheyHold() throws Exception {
        int n = Integer.getInteger("tracewire.fuzz.store", 60);
        Map<String, Integer> pcapng = fuzz(Files.readAllBytes(CaptureStoreTest.fixture(dir, "m.pcapng", 600)), ".pcapng", n, 20261127);
        byte[] dat;
        try (var in = StoreMutationTest.class.getResourceAsStream("/tracedat/sched-v7-zstd.dat")) {
            dat = in.readAllBytes();
        }
        Map<String, Integer> tracedat = fuzz(dat, ".dat", Math.max(1, n * 2 / 3), 20261128);
        System.out.printf("[fuzz] store of mutated inputs: pcapng %s, trace.dat %s%n", pcapng, tracedat);
        if (FUZZ_FROM > 0) {
            return; // a part of the run: its outcomes are not the whole's
        }
        assertTrue(pcapng.getOrDefault("complete", 0) > 0, pcapng.toString());
        assertTrue(tracedat.getOrDefault("complete", 0) + tracedat.getOrDefault("partial", 0) > 0, tracedat.toString());
    }

    /** Seconds an input may take before it counts as a hang ({@code -Dtracewire.fuzz.hangSeconds}). */
    private static final int HANG_S = Integer.getInteger("tracewire.fuzz.hangSeconds", 20);

    /** {@code -Dtracewire.fuzz.from=N}: start the pcapng inputs at mutation N (to look at one a run reported). */
    private static final int FUZZ_FROM = Integer.getInteger("tracewire.fuzz.from", 0);

    private Map<String, Integer> fuzz(byte[] base, String ext, int count, long seed) throws Exception {
        Random rnd = new Random(seed);
        Map<String, Integer> outcomes = new TreeMap<>();
        ExecutorService one = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "store-fuzz");
            t.setDaemon(true);
            return t;
        });
        try {
            for (int i = 0; i < count; i++) {
                byte[] m = base.clone();
                int flips = 1 + rnd.nextInt(8);
                for (int k = 0; k < flips; k++) {
                    m[rnd.nextInt(m.length)] = (byte) rnd.nextInt(256);
                }
                if (rnd.nextInt(3) == 0) {
                    m = Arrays.copyOf(m, rnd.nextInt(m.length));
                }
                if (i < FUZZ_FROM && ext.equals(".pcapng")) {
                    continue; // the pcapng run from FUZZ_FROM on: the same random draws before it
                }
                Path p = dir.resolve("m" + i + ext);
                Files.write(p, m);
                int index = i;
                String outcome;
                try {
                    outcome = one.submit(() -> buildMutated(p, index)).get(HANG_S, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("mutation " + i + " of " + ext + ": no answer in " + HANG_S + " s (a hang)");
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof AssertionError a ? a : new AssertionError("mutation " + i + ext, e.getCause());
                }
                outcomes.merge(outcome, 1, Integer::sum);
                Files.delete(p);
                if ((i + 1) % 500 == 0) {
                    System.out.printf("[fuzz] %s: %d inputs, %s%n", ext, i + 1, outcomes);
                }
            }
        } finally {
            one.shutdownNow();
        }
        return outcomes;
    }

    /** Builds the store of one mutated file; "complete", "partial" or "refused", else fails. */
    private String buildMutated(Path p, int i) throws Exception {
        long readable = -1;
        try (RecordInput in = RecordInput.open(p, null)) {
            readable = 0;
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                it.next();
                readable++;
            }
        } catch (IOException | RuntimeException e) {
            // counted below against the store
        }
        try (CaptureStore store = CaptureStore.open(List.of(p), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            long n = rs.getLong(1);
            CaptureStore.Source src = store.sources().get(0);
            assertEquals(src.events(), n);
            if (src.stoppedAt() == null) {
                assertEquals(readable, n, "mutation " + i + ": a complete store holds what the input yields");
                return "complete";
            }
            assertTrue(n <= Math.max(readable, 0) || readable < 0, "mutation " + i + ": a partial store holds no more "
                    + "than the input yields");
            return "partial";
        } catch (IOException | IllegalArgumentException e) {
            String msg = String.valueOf(e.getMessage());
            assertTrue(msg.contains(p.getFileName().toString()) || msg.contains("pcapng offset")
                    || msg.contains("trace.dat"), "mutation " + i + ": a clear error: " + msg);
            return "refused";
        } catch (SQLException | RuntimeException e) {
            throw new AssertionError("mutation " + i + " (" + p.getFileName() + "): " + e, e);
        }
    }
}
