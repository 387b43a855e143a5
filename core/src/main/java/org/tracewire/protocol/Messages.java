package org.tracewire.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.tracewire.tracefs.EventSelection;

/**
 * Every message of the backend protocol ({@code docs/backend-protocol.md}), as records both ends
 * use: the desktop app's {@code BackendClient} and the backend's {@code BackendServer}. A record is
 * a message's body; its {@code type} (the {@link JsonTypeName} on the record) and the command
 * {@code id} travel in the envelope that {@link Protocol} adds and strips. Fields marked
 * {@link Required} must be present and non-null; the others are optional (omitted when null, unless
 * noted). JSON mapping, strictness and size limits live in {@link Protocol}.
 */
public final class Messages {
    private Messages() {
    }

    /** A command (app → backend); every command carries an {@code id} the reply repeats. */
    public sealed interface Command permits HelloRequest, ListEventsRequest, FormatRequest, ValidateFilterRequest,
            CaptureRequest, StopCaptureRequest, StatsRequest, QuitRequest {
    }

    /** A message from the backend: a reply (with the command's {@code id}) or a pushed message (without). */
    public sealed interface Reply permits Hello, EventList, FormatReply, FilterResult, Started, Stopped, Stats, Bye,
            Error {
    }

    // ---- commands ----

    /** {@code hello}: who are you? Reply {@link Hello}. */
    @JsonTypeName("hello")
    public record HelloRequest() implements Command {
    }

    /** {@code listEvents}: every event of the tracefs. Reply {@link EventList}. */
    @JsonTypeName("listEvents")
    public record ListEventsRequest() implements Command {
    }

    /**
     * {@code format}: one event's format. Reply {@link FormatReply}.
     *
     * @param event "system:event"
     */
    @JsonTypeName("format")
    public record FormatRequest(@Required String event) implements Command {
    }

    /**
     * {@code validateFilter}: the kernel's verdict on a filter, checked in a scratch instance.
     * Reply {@link FilterResult}.
     *
     * @param event  "system:event"
     * @param filter the kernel filter
     */
    @JsonTypeName("validateFilter")
    public record ValidateFilterRequest(@Required String event, @Required String filter) implements Command {
    }

    /**
     * One event to capture in {@link CaptureRequest}: the JSON form of {@link EventSelection}, the
     * one model of an event with its filter ({@link #of} and {@link #toSelection} convert). Its
     * fields stay plain text so that a malformed one reaches the backend, which names it in its
     * error.
     *
     * @param event  "system:event"
     * @param filter kernel filter, or null for none
     * @param stack  stack traces after each of its events: {@code kernel}, {@code user} (capture-wide),
     *               {@code both}, or null / {@code none} for none ({@code docs/stacks.md})
     */
    public record CaptureEvent(@Required String event, String filter, String stack) {
        /** An event without stack traces. */
        public CaptureEvent(String event, String filter) {
            this(event, filter, null);
        }

        /** The JSON form of a selection: {@code stack} null for {@link EventSelection.Stack#NONE}. */
        public static CaptureEvent of(EventSelection s) {
            return new CaptureEvent(s.fullName(), s.filter(), s.stack() == EventSelection.Stack.NONE ? null
                    : s.stack().word());
        }

        /**
         * The selection this names, checked: {@code event} one {@code SYSTEM:EVENT}, {@code stack}
         * one of the words {@link EventSelection.Stack#parse} reads (null: none).
         *
         * @throws IllegalArgumentException naming the part that is malformed
         */
        @JsonIgnore
        public EventSelection toSelection() {
            return EventSelection.parse(event, filter,
                    stack == null ? EventSelection.Stack.NONE : EventSelection.Stack.parse(stack));
        }
    }

    /**
     * {@code startCapture}. Reply {@link Started} (or {@link Error}).
     *
     * @param events   the events with their filters (at least one)
     * @param iface    TAP interface to create, or null for none
     * @param pcapng   absolute path of the pcapng file to write, or null for none
     * @param bufferKb per-CPU ring buffer size in KiB, or null for the backend's default
     * @param clock    trace clock, or null for {@code mono}
     * @param traceSelf true: also record the events of the backend's threads and of the app's
     *                  process; null or false: the backend excludes them ({@code set_event_notrace_pid}
     *                  with {@code options/event-fork}; the app is the backend's parent process,
     *                  skipping {@code pkexec} and {@code sudo})
     */
    @JsonTypeName("startCapture")
    public record CaptureRequest(@Required List<CaptureEvent> events, String iface, String pcapng, Integer bufferKb,
                                 String clock, Boolean traceSelf) implements Command {
        /** A request that excludes the backend and the app (no {@code traceSelf}). */
        public CaptureRequest(List<CaptureEvent> events, String iface, String pcapng, Integer bufferKb, String clock) {
            this(events, iface, pcapng, bufferKb, clock, null);
        }
    }

    /** {@code stopCapture}: stop after a final drain. Reply {@link Stopped}. */
    @JsonTypeName("stopCapture")
    public record StopCaptureRequest() implements Command {
    }

    /** {@code stats}: the current counters. Reply {@link Stats}. */
    @JsonTypeName("stats")
    public record StatsRequest() implements Command {
    }

    /** {@code quit}: reply {@link Bye}, then stop any capture, clean up and exit 0. */
    @JsonTypeName("quit")
    public record QuitRequest() implements Command {
    }

    // ---- replies and pushed messages ----

    /**
     * Reply to {@code hello}.
     *
     * @param version backend version
     * @param kernel  uname -r
     * @param live    true when the backend reads the live tracefs
     * @param label   e.g. "live tracefs /sys/kernel/tracing"
     * @param cpus    number of CPUs
     */
    @JsonTypeName("hello")
    public record Hello(@Required String version, @Required String kernel, @Required boolean live,
                        @Required String label, @Required int cpus) implements Reply {
    }

    /**
     * Reply to {@code listEvents}.
     *
     * @param events "system:event" names
     */
    @JsonTypeName("events")
    public record EventList(@Required List<String> events) implements Reply {
    }

    /**
     * Reply to {@code format}.
     *
     * @param format the event format as {@code ./tracewire formats --json} prints one event
     *               ({@link org.tracewire.format.FormatJson})
     */
    @JsonTypeName("format")
    public record FormatReply(@Required JsonNode format) implements Reply {
    }

    /**
     * Reply to {@code validateFilter}.
     *
     * @param accepted the kernel accepted the filter
     * @param message  the kernel's message ("" when accepted)
     * @param position 0-based error position or -1
     */
    @JsonTypeName("filterResult")
    public record FilterResult(@Required boolean accepted, @Required String message, @Required int position)
            implements Reply {
    }

    /**
     * Reply to {@code startCapture}. {@code iface} and {@code pcapng} are always written
     * ({@code null} when not asked for).
     *
     * @param instance the tracefs instance the backend created
     * @param iface    the TAP interface, or null
     * @param pcapng   the capture file, or null
     */
    @JsonTypeName("started")
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Started(@Required String instance, String iface, String pcapng) implements Reply {
    }

    /**
     * Per-CPU counters in {@link Stats}.
     *
     * @param cpu              the CPU
     * @param records          records of events read (not those read only to follow task names)
     * @param lostKnown        events lost: exact, reconciled with the kernel's {@code per_cpu/cpuN/stats}
     *                         (overrun + commit overrun + dropped; a lower bound while running). The
     *                         name predates the reconciliation; no loss is of unknown size any more
     * @param lostUnknownPages obsolete (pages that reported a loss of unknown size): never sent,
     *                         accepted from older peers
     * @param lostAfterLast    of {@code lostKnown}, events lost after the CPU's last event (no frame
     *                         carries them); in the final stats only
     * @param kernelAgrees     all records read + lost = the events the kernel tried to record on this
     *                         CPU; in the final stats only
     */
    public record CpuStat(@Required int cpu, @Required long records, @Required long lostKnown,
                          Long lostUnknownPages, Long lostAfterLast, Boolean kernelAgrees) {
        /** Counters while a capture runs. */
        public CpuStat(int cpu, long records, long lost) {
            this(cpu, records, lost, null, null, null);
        }
    }

    /**
     * Capture counters: the reply to {@code stats}, pushed every second during a capture, and the
     * {@code stats} of {@link Stopped}.
     *
     * @param running         true while a capture runs (false in the final stats)
     * @param events          events captured
     * @param eventsPerSecond average rate since the capture started
     * @param frames          frames written
     * @param bytes           frame bytes written (per output)
     * @param cpus            per-CPU counters
     */
    @JsonTypeName("stats")
    public record Stats(@Required boolean running, @Required long events, @Required double eventsPerSecond,
                        @Required long frames, @Required long bytes, @Required List<CpuStat> cpus)
            implements Reply {
        /** All zero, not running. */
        public static final Stats ZERO = new Stats(false, 0, 0, 0, 0, List.of());
    }

    /**
     * Reply to {@code stopCapture}.
     *
     * @param stats the final counters, taken after the drain ({@link Stats#ZERO} when none ran)
     */
    @JsonTypeName("stopped")
    public record Stopped(@Required Stats stats) implements Reply {
    }

    /** Reply to {@code quit}. */
    @JsonTypeName("bye")
    public record Bye() implements Reply {
    }

    /**
     * A failed command (with its {@code id}) or a problem during a capture (pushed, no id).
     *
     * @param message  what went wrong
     * @param event    for a refused filter: the event, else null
     * @param position for a refused filter: 0-based error position or -1, else null
     */
    @JsonTypeName("error")
    public record Error(@Required String message, String event, Integer position) implements Reply {
        /** An error with a message only. */
        public Error(String message) {
            this(message, null, null);
        }
    }
}
