package org.tracewire.app.backend;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/** Typed messages of the backend protocol ({@code docs/backend-protocol.md}). */
public final class Messages {
    private Messages() {
    }

    /**
     * Reply to {@code hello}.
     *
     * @param version backend version
     * @param kernel  uname -r
     * @param live    true when the backend reads the live tracefs
     * @param label   e.g. "live tracefs /sys/kernel/tracing"
     * @param cpus    number of CPUs
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Hello(String version, String kernel, boolean live, String label, int cpus) {
    }

    /**
     * One event pushed in an {@code events} message.
     *
     * @param cpu    the CPU
     * @param ts     nanoseconds since the epoch
     * @param pid    the task's pid
     * @param comm   the task's name
     * @param event  "system:event"
     * @param text   the kernel's rendered line body
     * @param fields field name to value
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record EventItem(int cpu, long ts, int pid, String comm, String event, String text, Map<String, Object> fields) {
    }

    /**
     * Per-CPU counters in {@link Stats}.
     *
     * @param cpu              the CPU
     * @param records          records read
     * @param lostKnown        records the kernel reported lost
     * @param lostUnknownPages pages lost with an unknown count
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record CpuStat(int cpu, long records, long lostKnown, long lostUnknownPages) {
    }

    /**
     * Capture counters, pushed every second and in the {@code stopped} reply.
     *
     * @param events          events captured
     * @param eventsPerSecond current rate
     * @param frames          frames written
     * @param bytes           bytes written
     * @param streamDropped   events not streamed to the app because it could not keep up
     * @param cpus            per-CPU counters
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Stats(long events, double eventsPerSecond, long frames, long bytes, long streamDropped, List<CpuStat> cpus) {
        /** All zero. */
        public static final Stats ZERO = new Stats(0, 0, 0, 0, 0, List.of());
    }

    /**
     * Reply to {@code startCapture}.
     *
     * @param instance the tracefs instance the backend created
     * @param iface    the TAP interface, or null
     * @param pcapng   the capture file, or null
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Started(String instance, String iface, String pcapng) {
    }

    /**
     * Reply to {@code validateFilter}.
     *
     * @param accepted the kernel accepted the filter
     * @param message  the kernel's message
     * @param position 0-based error position or -1
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record FilterResult(boolean accepted, String message, int position) {
    }

    /**
     * One event to capture in {@code startCapture}.
     *
     * @param event  "system:event"
     * @param filter kernel filter, or null
     */
    public record CaptureEvent(String event, String filter) {
    }

    /**
     * The arguments of {@code startCapture}.
     *
     * @param events   the events with their filters
     * @param iface    TAP name or null
     * @param pcapng   capture file or null
     * @param bufferKb per-CPU buffer size or 0 for the default
     * @param clock    trace clock or null
     * @param stream   push events to the app
     */
    public record CaptureRequest(List<CaptureEvent> events, String iface, String pcapng, int bufferKb, String clock, boolean stream) {
    }
}
