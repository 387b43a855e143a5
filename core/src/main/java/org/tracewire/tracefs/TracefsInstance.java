package org.tracewire.tracefs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A tracefs instance ({@code instances/<name>}): its own ring buffers, event enables, filters,
 * trace options and clock, separate from the top-level buffer and from other tools' instances.
 * All reads and writes of {@link Tracefs} apply to the instance's directory.
 * {@link #close()} disables tracing and removes it ({@code rmdir}).
 */
public final class TracefsInstance extends Tracefs implements AutoCloseable {
    private final String name;
    private final Tracefs parent;

    TracefsInstance(Tracefs parent, Path dir, String name) {
        super(dir, true, parent.byteOrder(), "instance " + name);
        this.parent = parent;
        this.name = name;
    }

    /** The instance name (the directory under {@code instances/}). */
    public String name() {
        return name;
    }

    /** The tracefs this instance lives in. */
    public Tracefs parent() {
        return parent;
    }

    /**
     * {@code events/header_page} lives only at the top level on some kernels: read it there when the
     * instance lacks it.
     */
    @Override
    public String read(String relative) {
        if (relative.startsWith("events/header_") && !Files.exists(root().resolve(relative))) {
            return parent.read(relative);
        }
        return super.read(relative);
    }

    /** {@code tracing_on}: 1 records, 0 stops recording (the buffer keeps what it has). */
    public void setTracingOn(boolean on) {
        write("tracing_on", on ? "1" : "0");
    }

    /** Enables or disables one event in this instance. */
    public void setEnabled(String system, String event, boolean enabled) {
        write(eventPath(system, event, "enable"), enabled ? "1" : "0");
    }

    /** Sets an option in {@code trace_options}, e.g. {@code nohash-ptr}. */
    public void setOption(String option) {
        write("trace_options", option);
    }

    /** Sets {@code trace_clock}. */
    public void setClock(String clock) {
        write("trace_clock", clock);
    }

    /** Sets {@code buffer_size_kb} (per CPU, KiB). */
    public void setBufferSizeKb(int kb) {
        write("buffer_size_kb", Integer.toString(kb));
    }

    /**
     * Disables tracing and every event, then removes the instance directory. Idempotent.
     *
     * @throws TracefsException when the kernel refuses to remove it (e.g. a reader holds a file open)
     */
    @Override
    public void close() {
        Path dir = root();
        if (!Files.isDirectory(dir)) {
            return;
        }
        try {
            write("tracing_on", "0");
            write("events/enable", "0");
        } catch (TracefsException ignored) {
            // removal below still disables everything the instance had
        }
        // The kernel refuses (EBUSY) while any of the instance's files is still referenced; a
        // reader that just closed can hold it for a moment, so retry briefly before giving up.
        for (int attempt = 0; ; attempt++) {
            try {
                Files.delete(dir);
                return;
            } catch (IOException e) {
                boolean busy = String.valueOf(e.getMessage()).contains("busy");
                if (!busy || attempt >= 40) {
                    throw new TracefsException("cannot remove instance " + dir + ": " + e, e);
                }
                try {
                    Thread.sleep(25);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new TracefsException("interrupted while removing instance " + dir, ie);
                }
            }
        }
    }
}
