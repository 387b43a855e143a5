package org.tracewire.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.record.EventRecord;
import org.tracewire.ringbuffer.RawRecord;
import org.tracewire.ringbuffer.RingBufferDrain;
import org.tracewire.ringbuffer.SubBuffer;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.tracefs.TracefsInstance;

/**
 * The offset between an instance's trace clock and wall-clock time (UTC), measured once at the
 * start of a capture.
 *
 * <p>Method: with tracing on and no event enabled, tracewire writes numbered markers to the
 * instance's {@code trace_marker}, reading the wall clock ({@link Instant#now()}, CLOCK_REALTIME,
 * ns) just before and just after each write. Each marker becomes an {@code ftrace:print} record
 * stamped by the trace clock somewhere inside that bracket, so
 * {@code offset = ts - (before + after) / 2} with an error of at most {@code (after - before) / 2}.
 * The sample with the narrowest bracket wins. The markers are drained from the buffer before any
 * event is enabled.
 *
 * <p>Error bound: the half-width of the best bracket (typically a few µs here) plus the drift
 * between the trace clock and CLOCK_REALTIME during the capture (ppm-level for {@code local} /
 * {@code mono}; NTP slews apply to the wall clock only). Only meaningful for nanosecond clocks.
 *
 * @param offsetNs trace-clock ns minus wall-clock ns since the Unix epoch
 * @param errorNs  the measurement's error bound in ns
 */
public record ClockSync(long offsetNs, long errorNs) {
    private static final String MARKER = "tracewire-clock-sync ";

    /** No measurement: trace time is reported as is (flagged as raw on the wire). */
    public static ClockSync none() {
        return new ClockSync(0, -1);
    }

    /** True when this is a real measurement. */
    public boolean measured() {
        return errorNs >= 0;
    }

    /** Wall-clock ns since the Unix epoch for a trace-clock time stamp. */
    public long toWallNs(long traceTs) {
        return traceTs - offsetNs;
    }

    /** The trace clock's value now, estimated from the wall clock. */
    public long traceNow() {
        return epochNanos(Instant.now()) + offsetNs;
    }

    static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /**
     * Measures the offset in an instance whose events are not enabled yet. Leaves tracing off and
     * the buffer empty.
     *
     * @param instance    the capture's instance
     * @param layout      its sub-buffer layout
     * @param printFormat the {@code ftrace:print} format (the records {@code trace_marker} writes)
     * @param samples     how many markers to write (8 is plenty)
     * @throws IOException when the markers cannot be written or read back
     */
    public static ClockSync measure(TracefsInstance instance, SubBufferLayout layout, EventFormat printFormat,
                                    int samples) throws IOException {
        long[] before = new long[samples];
        long[] after = new long[samples];
        RingBufferDrain.drain(instance, layout);
        instance.setTracingOn(true);
        try (OutputStream marker = Files.newOutputStream(instance.root().resolve("trace_marker"),
                StandardOpenOption.WRITE)) {
            for (int i = 0; i < samples; i++) {
                byte[] text = (MARKER + i).getBytes(StandardCharsets.US_ASCII);
                before[i] = epochNanos(Instant.now());
                marker.write(text);
                after[i] = epochNanos(Instant.now());
            }
        } finally {
            instance.setTracingOn(false);
        }
        Field buf = printFormat.field("buf");
        long bestOffset = 0;
        long bestError = Long.MAX_VALUE;
        for (SubBuffer page : RingBufferDrain.drain(instance, layout)) {
            for (RawRecord r : page.records()) {
                if (r.eventId() != printFormat.id()) {
                    continue;
                }
                String text = new EventRecord(printFormat, layout.kernel(), r.cpu(), r.timestamp(), r.payload())
                        .string(buf);
                if (!text.startsWith(MARKER)) {
                    continue;
                }
                int i = Integer.parseInt(text.substring(MARKER.length()).strip());
                if (i < 0 || i >= samples) {
                    continue;
                }
                long error = (after[i] - before[i]) / 2;
                if (error < bestError) {
                    bestError = error;
                    bestOffset = r.timestamp() - (before[i] + error);
                }
            }
        }
        if (bestError == Long.MAX_VALUE) {
            throw new IOException("no clock-sync marker came back from " + instance.root() + "/trace_marker");
        }
        return new ClockSync(bestOffset, bestError);
    }
}
