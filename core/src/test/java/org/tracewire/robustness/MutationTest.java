package org.tracewire.robustness;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FormatException;
import org.tracewire.format.FormatParser;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.record.RecordException;
import org.tracewire.ringbuffer.CorruptPageException;
import org.tracewire.ringbuffer.PageFixture;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * Bad input never escapes as anything but the documented exceptions: mutated format files
 * (bytes deleted, flipped, inserted) give an {@link EventFormat} or a {@link FormatException};
 * mutated real sub-buffers give a {@link SubBuffer} or a {@link CorruptPageException}, and the
 * records of a page that still decodes give values or a {@link RecordException}. Seeds are fixed
 * and printed, so a failure is reproducible.
 */
class MutationTest {
    private static final long SEED = 0x7261636577697265L;
    private static final byte[] INTERESTING = ":;[]\n\t 0-9%\"\\{}(),".getBytes(StandardCharsets.US_ASCII);

    static byte[] mutate(byte[] in, SplittableRandom rnd) {
        byte[] b = in;
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            int kind = rnd.nextInt(3);
            int pos = b.length == 0 ? 0 : rnd.nextInt(b.length);
            if (kind == 0 && b.length > 0) {
                int len = 1 + rnd.nextInt(Math.min(16, b.length - pos));
                byte[] out = new byte[b.length - len];
                System.arraycopy(b, 0, out, 0, pos);
                System.arraycopy(b, pos + len, out, pos, b.length - pos - len);
                b = out;
            } else if (kind == 1 && b.length > 0) {
                b = b.clone();
                b[pos] ^= (byte) (1 << rnd.nextInt(8));
            } else {
                byte ins = rnd.nextBoolean() ? INTERESTING[rnd.nextInt(INTERESTING.length)] : (byte) rnd.nextInt(256);
                byte[] out = new byte[b.length + 1];
                System.arraycopy(b, 0, out, 0, pos);
                out[pos] = ins;
                System.arraycopy(b, pos, out, pos + 1, b.length - pos);
                b = out;
            }
        }
        return b;
    }

    @Test
    void mutatedFormatFilesParseOrFailWithPosition() throws Exception {
        List<byte[]> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(Prerequisites.snapshot().resolve("events"))) {
            for (Path p : s.filter(p -> p.getFileName().toString().equals("format")).sorted().toList()) {
                files.add(Files.readAllBytes(p));
            }
        }
        assertTrue(files.size() > 2000);
        SplittableRandom rnd = new SplittableRandom(SEED);
        int inputs = 120_000;
        int[] outcomes = new int[2];
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
            for (int i = 0; i < inputs; i++) {
                byte[] input = mutate(files.get(rnd.nextInt(files.size())), rnd);
                String text = new String(input, StandardCharsets.UTF_8);
                try {
                    FormatParser.parse("fuzz", text, "input#" + i);
                    outcomes[0]++;
                } catch (FormatException e) {
                    assertTrue(e.line() >= 1 && e.column() >= 1, "position of " + e.getMessage());
                    assertTrue(e.getMessage().startsWith("input#" + i + ":"), e.getMessage());
                    outcomes[1]++;
                } catch (RuntimeException e) {
                    fail("seed " + SEED + " input " + i + ": " + e + "\n" + text, e);
                }
            }
        });
        System.out.printf("format mutations: %d inputs, %d parsed, %d FormatException%n", inputs, outcomes[0], outcomes[1]);
        assertTrue(outcomes[1] > inputs / 10, "too few mutations were rejected: the mutator is not mutating");
    }

    @Test
    void mutatedRealPagesDecodeOrFailWithCpuAndOffset() throws Exception {
        Map<Integer, EventFormat> byId = Tracefs.open(Prerequisites.snapshot()).formats().byId();
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        SubBufferLayout layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        List<PageFixture.Page> pages = PageFixture.load();
        SplittableRandom rnd = new SplittableRandom(SEED);
        int inputs = 30_000;
        int[] outcomes = new int[3];
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
            for (int i = 0; i < inputs; i++) {
                PageFixture.Page page = pages.get(rnd.nextInt(pages.size()));
                byte[] b = page.bytes().clone();
                // flip bytes mostly in the page header and the first records, where the structure is
                int flips = 1 + rnd.nextInt(6);
                for (int f = 0; f < flips; f++) {
                    int pos = rnd.nextInt(4) == 0 ? rnd.nextInt(16) : rnd.nextInt(b.length);
                    b[pos] = (byte) rnd.nextInt(256);
                }
                if (rnd.nextInt(10) == 0) {
                    b = Arrays.copyOf(b, rnd.nextInt(b.length));
                }
                SubBuffer sb;
                try {
                    sb = SubBuffer.decode(ByteBuffer.wrap(b), layout, page.cpu());
                    outcomes[0]++;
                } catch (CorruptPageException e) {
                    assertTrue(e.cpu() == page.cpu() && e.offset() >= 0 && e.offset() <= b.length, e.getMessage());
                    outcomes[1]++;
                    continue;
                } catch (RuntimeException e) {
                    fail("seed " + SEED + " input " + i + ": " + e, e);
                    return;
                }
                for (RawRecord r : sb.records()) {
                    if (r.payload().limit() < 2) {
                        continue;
                    }
                    EventFormat f = byId.get(r.eventId());
                    if (f == null) {
                        continue;
                    }
                    EventRecord er = new EventRecord(f, kernel, r.cpu(), r.timestamp(), r.payload());
                    for (Field field : f.allFields()) {
                        try {
                            if (field.kind().isString()) {
                                er.string(field);
                            } else if (field.size() == 1 || field.size() == 2 || field.size() == 4 || field.size() == 8) {
                                er.integer(field);
                            } else {
                                er.bytes(field);
                            }
                        } catch (RecordException e) {
                            outcomes[2]++;
                        } catch (RuntimeException e) {
                            fail("seed " + SEED + " input " + i + " " + f.fullName() + "." + field.name() + ": " + e, e);
                        }
                    }
                }
            }
        });
        System.out.printf("page mutations: %d inputs, %d decoded, %d CorruptPageException, %d RecordException%n",
                inputs, outcomes[0], outcomes[1], outcomes[2]);
        assertTrue(outcomes[1] > 0 && outcomes[0] > 0, "mutations should both pass and fail");
    }
}
