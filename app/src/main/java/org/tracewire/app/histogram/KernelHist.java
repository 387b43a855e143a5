package org.tracewire.app.histogram;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.analysis.HistSpec;
import org.tracewire.analysis.HistSupport;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.tracefs.Tracefs;

/**
 * Where a histogram runs: whether this kernel has hist triggers (read from an event's
 * {@code trigger} file, {@link HistSupport}), said in a sentence, and the shell command that would
 * run the current spec in the kernel ({@code echo 'hist:…' >> events/SYSTEM/EVENT/trigger}).
 */
public final class KernelHist {
    private final StringProperty support = new SimpleStringProperty("Looking for the kernel's hist triggers…");
    private final BooleanProperty kernelHist = new SimpleBooleanProperty(false);
    private final StringProperty kernelCommand = new SimpleStringProperty("");

    /**
     * Reads the support in the background; {@code then} runs on the UI thread after {@link #set}.
     *
     * @param tracefs the tree browsed (live as root, else the snapshot), or null (nothing read)
     */
    void load(TaskExecutor executor, Tracefs tracefs, Runnable then) {
        if (tracefs == null) {
            return;
        }
        executor.execute(() -> HistSupport.of(tracefs), s -> {
            set(s);
            then.run();
        }, e -> {
            set(null);
            then.run();
            if (!tracefs.isLive()) {
                support.set("Aggregated by tracewire from the captured events (the snapshot browsed does not record "
                        + "whether the kernel has hist triggers; the live tracefs, as root, does).");
            }
        });
    }

    /** @param s the kernel's trigger support, or null when unknown */
    void set(HistSupport s) {
        kernelHist.set(s != null && s.hist());
        if (s == null) {
            support.set("Aggregated by tracewire from the captured events (the kernel's triggers could not be read).");
        } else if (s.hist()) {
            support.set("This kernel has hist triggers: the command below runs this histogram in the kernel. "
                    + "Shown here: tracewire's aggregate of the captured events (the same table).");
        } else {
            support.set("This kernel has no hist triggers (its trigger files list only " + String.join(" ", s.available())
                    + "): the histogram is aggregated by tracewire from the captured events.");
        }
    }

    /** Sets the command for a spec of an event ("system:event"); empty without either. */
    void command(HistSpec s, String ev) {
        if (s == null || ev == null || !ev.contains(":")) {
            kernelCommand.set("");
            return;
        }
        String path = "events/" + ev.replace(':', '/') + "/trigger";
        kernelCommand.set((kernelHist.get() ? "" : "(not on this kernel) ") + "echo '" + s.toTriggerText() + "' >> " + path);
    }

    /** Where the histogram is computed, in a sentence. */
    public StringProperty supportProperty() {
        return support;
    }

    /** True when the kernel has hist triggers. */
    public BooleanProperty kernelHistProperty() {
        return kernelHist;
    }

    /** The shell command that would run the trigger in the kernel. */
    public StringProperty kernelCommandProperty() {
        return kernelCommand;
    }
}
