package org.tracewire.capture;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Which tasks a capture records, when not all: the threads of the given processes and every task
 * they start from then on, through the kernel's own pid filtering (the instance's
 * {@code set_event_pid} with {@code options/event-fork}; {@code trace_events.c}), as
 * trace-cmd's {@code -P PID} and {@code record CMD} do. A {@code sched_switch} or
 * {@code sched_wakeup} is recorded when either of its tasks is in the list.
 *
 * @param processes process ids (each one's threads are listed from {@code /proc}); not empty
 * @param onTracing run once tracing is on (e.g. lets a stopped command go on); null for nothing
 */
public record TaskScope(List<Long> processes, Runnable onTracing) {
    /**
     * @throws IllegalArgumentException when {@code processes} is empty
     */
    public TaskScope {
        processes = List.copyOf(Objects.requireNonNull(processes, "processes"));
        if (processes.isEmpty()) {
            throw new IllegalArgumentException("a task scope needs at least one process");
        }
    }

    /**
     * Writes the processes' threads into the instance's {@code set_event_pid} (before tracing
     * starts) and reads the list back.
     *
     * @param instance the capture's instance
     * @return the thread ids written
     * @throws TracefsException when the kernel lacks the files, a process is gone, or the
     *                          read-back misses a thread
     */
    public Set<Long> apply(TracefsInstance instance) {
        for (long pid : processes) {
            if (SelfExclusion.tasks(pid).isEmpty()) {
                throw new TracefsException("no process " + pid + " (it exited, or never was)");
            }
        }
        return SelfExclusion.list(instance, SelfExclusion.TRACE_PIDS, processes,
                "cannot trace only some processes");
    }

    /** Runs {@link #onTracing()} when there is one. */
    void tracingStarted() {
        if (onTracing != null) {
            onTracing.run();
        }
    }
}
