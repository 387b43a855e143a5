package org.tracewire.archfixture;

import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;

/** Breaks the one-planner rule on purpose (describes a task outside the planner): a fixture for its meta-test. */
public final class SecondPlanner {
    private SecondPlanner() {
    }

    /** A PROCESS message made here, not by the planner. */
    public static ContextMessage describe(int pid, String comm) {
        return ContextMessage.builder(FrameKind.PROCESS).task(pid, -1, comm).build();
    }
}
