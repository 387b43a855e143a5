package org.tracewire.tracefs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.format.EventFormat;

/**
 * Asks the running kernel whether it accepts a filter: in a scratch instance
 * ({@code instances/tracewire-filtercheck-<pid>}, removed on {@link #close()}), writes the text
 * to the event's {@code filter} file, reads it back, and on refusal reads the new entry of the
 * instance's {@code error_log}:
 *
 * <pre>
 * [  2086.538723] event filter parse error: error: Field not found
 *   Command: prev_pidd == 1
 *                    ^
 * </pre>
 *
 * The caret's column minus the column of the command gives the 0-based position. The event is
 * never enabled, and its filter is reset ({@code 0}) after each check: a refused write leaves an
 * event unfiltered, so never enable an event whose filter was not accepted.
 *
 * <p>Use {@link #check(Tracefs, EventFormat, String)} for one filter, or {@link #open(Tracefs)}
 * and {@link #check(EventFormat, String)} for many (one instance for all).
 */
public final class KernelFilterCheck implements AutoCloseable {
    /** Prefix of the scratch instance's name; the process id follows. */
    public static final String INSTANCE_PREFIX = "tracewire-filtercheck-";
    /** The purpose in its instance name ({@link org.tracewire.tracefs.OwnInstances}). */
    static final String PURPOSE = "filtercheck";

    private static final Object LOCK = new Object();

    private final TracefsInstance instance;

    /**
     * The kernel's answer.
     *
     * @param accepted true when the write succeeded and the filter reads back as written
     * @param message  the kernel's message when refused (e.g. {@code "Field not found"}), else null
     * @param position 0-based position of the kernel's caret in the filter, -1 when accepted or unknown
     * @param readBack the {@code filter} file's content after the write (the kernel's text)
     */
    public record Result(boolean accepted, String message, int position, String readBack) {
    }

    private KernelFilterCheck(TracefsInstance instance) {
        this.instance = instance;
    }

    /**
     * Creates the scratch instance (removing a leftover of this process first).
     *
     * @param top the live top-level tracefs
     * @throws TracefsException when the instance cannot be created (not root, a snapshot)
     */
    public static KernelFilterCheck open(Tracefs top) {
        synchronized (LOCK) {
            return new KernelFilterCheck(OwnInstances.create(top, PURPOSE));
        }
    }

    /**
     * Checks one filter in a scratch instance created and removed for it.
     *
     * @param top    the live top-level tracefs
     * @param format the event
     * @param filter the text to write
     */
    public static Result check(Tracefs top, EventFormat format, String filter) {
        synchronized (LOCK) {
            try (KernelFilterCheck c = open(top)) {
                return c.check(format, filter);
            }
        }
    }

    /** Checks one filter in this check's instance; the event's filter is reset afterwards. */
    public Result check(EventFormat format, String filter) {
        try {
            return apply(instance, format.system(), format.name(), filter);
        } finally {
            try {
                instance.write("events/" + format.system() + "/" + format.name() + "/filter", "0");
            } catch (TracefsException ignored) {
                // the instance is removed on close anyway
            }
        }
    }

    /**
     * Writes a filter into an event of any instance (a capture's own, or the scratch one) and
     * reports the kernel's verdict: accepted when the write succeeds and the filter reads back as
     * written; otherwise the newest {@code error_log} entry's message and caret position, or the
     * {@code parse_error} line the {@code filter} file then shows. A refused filter leaves the
     * event unfiltered: callers must not enable the event then.
     *
     * @param instance where to write
     * @param system   the event's system
     * @param event    the event's name
     * @param filter   the filter text
     */
    public static Result apply(TracefsInstance instance, String system, String event, String filter) {
        String rel = "events/" + system + "/" + event + "/filter";
        int before = ErrorLog.parse(errorLog(instance)).entries().size();
        boolean written;
        try {
            instance.write(rel, filter);
            written = true;
        } catch (TracefsException e) {
            written = false;
        }
        String readBack = instance.read(rel).strip();
        if (written) {
            boolean same = readBack.equals(filter.strip());
            return new Result(same, same ? null : "the filter reads back differently: " + readBack, -1, readBack);
        }
        String message = null;
        int position = -1;
        for (ErrorLog.Entry e : ErrorLog.parse(errorLog(instance)).since(before)) {
            if (e.location().contains("event filter")) {
                message = e.message();
                position = e.position();
            }
        }
        if (message == null) {
            Matcher pe = Pattern.compile("parse_error: ([^\\n]*)").matcher(readBack);
            message = pe.find() ? pe.group(1).strip() : "the kernel refused the filter";
        }
        return new Result(false, message, position, readBack);
    }

    private static String errorLog(TracefsInstance instance) {
        return instance.exists("error_log") ? instance.read("error_log") : "";
    }

    /** Removes the scratch instance. */
    @Override
    public void close() {
        instance.close();
    }
}
