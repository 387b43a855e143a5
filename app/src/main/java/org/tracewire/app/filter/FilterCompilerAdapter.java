package org.tracewire.app.filter;

import java.util.List;
import org.tracewire.format.EventFormat;

/**
 * Turns the app's {@link FilterNode} into the three forms the builder previews. The app uses
 * {@link TracewireFilterCompiler} ({@code org.tracewire.filter}'s compilers); tests may stub it.
 */
public interface FilterCompilerAdapter {
    /**
     * The three compiled forms.
     *
     * @param kernel   the tracefs {@code filter} text
     * @param display  the Wireshark display filter
     * @param bpf      the BPF (capture filter) expression
     * @param bpfExact true when the BPF matches exactly the same events
     * @param warnings notes from the compilers
     */
    record Compiled(String kernel, String display, String bpf, boolean bpfExact, List<String> warnings) {
    }

    /**
     * @param event  the event the filter applies to
     * @param filter the filter (an empty group means "no filter")
     * @return the compiled forms
     * @throws IllegalArgumentException when the filter cannot be compiled
     */
    Compiled compile(EventFormat event, FilterNode filter);
}
