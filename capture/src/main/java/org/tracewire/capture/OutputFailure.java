package org.tracewire.capture;

import java.util.List;

/**
 * An output that failed during the capture (out of disk, a broken pipe, a reader that took
 * nothing for too long): {@link FrameSink} dropped it and the capture went on without it, so every
 * loss is still counted and the summary still printed.
 *
 * @param output        the output ({@link FrameOutput#describe()})
 * @param reason        why, e.g. "No space left on device"
 * @param eventsWritten event frames it holds: for a file, those in the whole blocks on disk (it is
 *                      cut back to them); else those handed to it before it failed
 */
public record OutputFailure(String output, String reason, long eventsWritten) {
    /**
     * Events not written to at least one output: those after its failure (the largest count of
     * any failed output).
     *
     * @param events event frames handed to the outputs
     */
    static long notWritten(List<OutputFailure> failures, long events) {
        long n = 0;
        for (OutputFailure f : failures) {
            n = Math.max(n, events - f.eventsWritten());
        }
        return n;
    }
}
