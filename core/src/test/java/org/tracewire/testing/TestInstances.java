package org.tracewire.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Tracefs instances for tests, named {@code tracewire-test-<pid>-<purpose>} so that a test never
 * touches the top-level buffer or another tool's instance, and so that instances left behind by a
 * killed test JVM can be recognised and removed.
 *
 * <pre>
 * try (TracefsInstance inst = TestInstances.create(Prerequisites.requireTracefs(), "decode")) {
 *     ...
 * }   // tracing off, events off, rmdir
 * </pre>
 */
public final class TestInstances {
    /** Prefix of every test instance's name. */
    public static final String PREFIX = "tracewire-test-";
    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-.+");
    private static final Pattern PURPOSE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private TestInstances() {
    }

    /**
     * Removes leftovers of dead test JVMs ({@link #removeLeftovers(Tracefs)}), then creates
     * instance {@code tracewire-test-<this pid>-<purpose>}. Close it (try-with-resources) to
     * disable it and remove it.
     *
     * @param tracefs the live tracefs (from {@link Prerequisites#requireTracefs()})
     * @param purpose 1–64 characters of {@code [A-Za-z0-9_.-]}, unique among the instances a JVM
     *                holds open at the same time
     * @return the new, empty instance (all events disabled)
     * @throws IllegalArgumentException when {@code purpose} has other characters
     * @throws TracefsException         when the instance exists already or cannot be created
     */
    public static TracefsInstance create(Tracefs tracefs, String purpose) {
        if (!PURPOSE.matcher(purpose).matches()) {
            throw new IllegalArgumentException("instance purpose must match " + PURPOSE + ": '" + purpose + "'");
        }
        removeLeftovers(tracefs);
        return tracefs.createInstance(nameFor(ProcessHandle.current().pid(), purpose));
    }

    /** {@code tracewire-test-<pid>-<purpose>}. */
    public static String nameFor(long pid, String purpose) {
        return PREFIX + pid + "-" + purpose;
    }

    /**
     * Removes every {@code tracewire-test-<pid>-*} instance whose pid is not a running process.
     * Instances of live processes (other test JVMs) are left alone. An instance that cannot be
     * removed (a reader still holds it open) is skipped.
     *
     * @return the names removed
     */
    public static List<String> removeLeftovers(Tracefs tracefs) {
        List<String> removed = new ArrayList<>();
        for (String name : tracefs.instanceNames()) {
            Matcher m = NAME.matcher(name);
            if (!m.matches()) {
                continue;
            }
            long pid;
            try {
                pid = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                continue;
            }
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            try {
                tracefs.instance(name).close();
                removed.add(name);
            } catch (TracefsException e) {
                System.err.println("TestInstances: could not remove leftover instance " + name + ": " + e.getMessage());
            }
        }
        return removed;
    }

    /**
     * Whether a capture's instance records: {@code tracing_on} is 1 and events are enabled. A new
     * instance starts with {@code tracing_on} = 1 before the capture turns it off to set itself up
     * (filters, clock markers, {@code set_event_notrace_pid}) and enables its events, so
     * {@code tracing_on} alone says "created", not "tracing". A file that cannot be read (no instance
     * yet, or its directory is visible before the kernel has made its files) means no.
     *
     * @param instanceDir the instance's directory, e.g. {@code /sys/kernel/tracing/instances/tracewire-42}
     */
    public static boolean isTracing(Path instanceDir) {
        try {
            return Files.readString(instanceDir.resolve("tracing_on")).strip().equals("1")
                    && !Files.readString(instanceDir.resolve("set_event")).isBlank();
        } catch (IOException notYet) {
            return false;
        }
    }
}
