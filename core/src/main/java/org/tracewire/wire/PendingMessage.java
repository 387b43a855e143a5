package org.tracewire.wire;

/**
 * A context message of one kind being built for the current event (the {@link ContextPlanner}'s
 * SYMBOLS and PROCESS sides): made on the first item, handed over and started anew by {@link #take}.
 */
final class PendingMessage {
    private final FrameKind kind;
    private ContextMessage.Builder builder;

    /** @param kind the message's kind */
    PendingMessage(FrameKind kind) {
        this.kind = kind;
    }

    /** The builder, made when nothing is pending. */
    ContextMessage.Builder builder() {
        if (builder == null) {
            builder = ContextMessage.builder(kind);
        }
        return builder;
    }

    /** The message built since the last call, or null when nothing. */
    ContextMessage take() {
        if (builder == null) {
            return null;
        }
        ContextMessage m = builder.build();
        builder = null;
        return m;
    }
}
