package org.tracewire.tracedat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.tracetext.KernelTextRenderer;

/**
 * Hostile trace.dat files: 6,000 mutations of the checked-in v7 (zstd) file and 6,000 of the v6
 * file {@link TraceDatWriter} makes of it (bits flipped, words overwritten with 0, -1 and huge
 * values, bytes deleted or inserted, the file cut short). Opening and reading every record (and
 * rendering it) either works or throws a {@link TraceDatException} whose message names the file
 * offset; no other exception, no file over 2 s of CPU time (measured per thread: the machine is shared and noisy), all within the time limit and the test JVM's heap.
 * Seeds are fixed (mutation i uses seed + i) and printed, so a failure is reproducible.
 */
class TraceDatMutationTest {
    private static final long SEED = 0x74726163652e6461L;
    private static final int MUTATIONS = 12_000;

    @TempDir
    Path dir;

    static byte[] mutate(byte[] in, SplittableRandom rnd) {
        byte[] b = in.clone();
        int n = 1 + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            int pos = rnd.nextInt(b.length);
            switch (rnd.nextInt(6)) {
                case 0 -> b[pos] ^= (byte) (1 << rnd.nextInt(8));
                case 1, 2 -> {
                    long[] values = {0, -1, 0x7fffffffL, 0xffffffffL, 1L << 40, rnd.nextLong(), b.length, 4096};
                    int width = rnd.nextBoolean() ? 4 : 8;
                    if (pos + width <= b.length) {
                        ByteBuffer w = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                        long v = values[rnd.nextInt(values.length)];
                        if (width == 4) {
                            w.putInt(pos, (int) v);
                        } else {
                            w.putLong(pos, v);
                        }
                    }
                }
                case 3 -> {
                    int len = 1 + rnd.nextInt(Math.min(64, b.length - pos));
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, pos);
                    System.arraycopy(b, pos + len, out, pos, b.length - pos - len);
                    b = out.length == 0 ? new byte[] {0} : out;
                }
                case 4 -> {
                    byte[] out = new byte[b.length + 1];
                    System.arraycopy(b, 0, out, 0, pos);
                    out[pos] = (byte) rnd.nextInt(256);
                    System.arraycopy(b, pos, out, pos + 1, b.length - pos);
                    b = out;
                }
                default -> {
                    byte[] out = new byte[Math.max(1, pos)];
                    System.arraycopy(b, 0, out, 0, out.length);
                    b = out;
                }
            }
        }
        return b;
    }

    @Test
    void mutatedFilesReadOrFailWithTheOffset() throws Exception {
        byte[] v7 = TraceDatFixtureTest.fixture();
        Path orig = Files.write(dir.resolve("orig.dat"), v7);
        Path v6path = dir.resolve("v6.dat");
        TraceDatFixtureTest.writeV6(orig, v6path);
        byte[] v6 = Files.readAllBytes(v6path);
        System.out.printf("trace.dat mutation test: seed %x, v7 %d bytes, v6 %d bytes%n", SEED, v7.length, v6.length);
        AtomicInteger read = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        AtomicLong slowest = new AtomicLong();
        assertTimeoutPreemptively(Duration.ofMinutes(15), () -> {
            // Two threads (the test's CPU limit is per thread); mutation i has its own seed.
            IntStream.range(0, MUTATIONS).parallel().forEach(i -> {
                SplittableRandom rnd = new SplittableRandom(SEED + i);
                byte[] m = mutate(i % 2 == 0 ? v7 : v6, rnd);
                Path p = dir.resolve("m" + Thread.currentThread().getId() + ".dat");
                long t0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                try {
                    Files.write(p, m);
                    try (TraceDatFile f = TraceDatFile.open(p); TraceDatRecords rs = f.records()) {
                        KernelTextRenderer r = TraceDatContext.renderer(f, f.printContext());
                        while (rs.hasNext()) {
                            r.line(rs.next().record());
                        }
                        read.incrementAndGet();
                    }
                } catch (TraceDatException e) {
                    assertTrue(e.getMessage().matches("(?s)trace\\.dat offset -?\\d+: .+"), e.getMessage());
                    rejected.incrementAndGet();
                } catch (IOException | RuntimeException e) {
                    throw new AssertionError("mutation " + i + " (seed " + Long.toHexString(SEED) + " + " + i + "): " + e, e);
                }
                long dt = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - t0;
                slowest.accumulateAndGet(dt, Math::max);
                assertTrue(dt < 2_000_000_000L, "mutation " + i + " took " + dt / 1_000_000 + " ms of CPU");
            });
        });
        System.out.printf("trace.dat mutation test: %d files, %d read, %d rejected with an offset, slowest %d ms of CPU%n",
                MUTATIONS, read.get(), rejected.get(), slowest.get() / 1_000_000);
        assertEquals(MUTATIONS, read.get() + rejected.get(), "every file read or rejected");
        assertTrue(rejected.get() > 1000, "too few mutations were rejected: " + rejected.get());
    }
}
