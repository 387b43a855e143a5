package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/** The status line's count of events indexed: at most one change per {@link CaptureReading#PROGRESS_NS}. */
class ProgressThrottleTest {
    @Test
    void countsPassAtMostOncePerIntervalTheFirstAtOnce() {
        long[] now = {1_000};
        List<Long> passed = new ArrayList<>();
        long every = CaptureReading.PROGRESS_NS;
        LongConsumer counted = CaptureReading.atMostEvery(every, () -> now[0], passed::add);
        // a count every 65,536 events at 1 M events/s: one each 65.5 ms
        for (long n = 1; n <= 40; n++) {
            counted.accept(n * 65_536);
            now[0] += 65_536_000;
        }
        // 40 counts over 2.6 s: the first at once, then one per 250 ms (each 4th count: 262 ms apart)
        List<Long> want = new ArrayList<>();
        for (long n = 1; n <= 40; n += 4) {
            want.add(n * 65_536);
        }
        assertEquals(want, passed);
        now[0] += every;
        counted.accept(1);
        now[0] += every - 1;
        counted.accept(2);
        now[0] += 1;
        counted.accept(3);
        assertEquals(List.of(1L, 3L), passed.subList(want.size(), passed.size()), "1 ns short of the interval: dropped");
    }
}
