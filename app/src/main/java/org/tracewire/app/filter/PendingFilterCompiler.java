package org.tracewire.app.filter;

import java.util.List;
import org.tracewire.format.EventFormat;

/**
 * Stand-in while {@code org.tracewire.filter} is not merged: the kernel form is the app's own
 * rendering ({@link FilterNode#toText()}); display and BPF forms say they are waiting.
 */
public final class PendingFilterCompiler implements FilterCompilerAdapter {
    /** Shown in place of the forms only the filter compilers produce. */
    public static final String WAITING = "(waiting for org.tracewire.filter)";

    /** {@inheritDoc} */
    @Override
    public Compiled compile(EventFormat event, FilterNode filter) {
        return new Compiled(filter.toText(), WAITING, WAITING, false,
                List.of("kernel form rendered by the app; display and BPF need org.tracewire.filter"));
    }
}
