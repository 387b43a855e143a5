package org.tracewire.tracefs;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one naming rule of the tracefs instances tracewire creates, and the one cleanup of those a
 * dead process left behind. Every instance is named {@code tracewire-<pid>} (a capture) or
 * {@code tracewire-<purpose>-<pid>} (a scratch instance: {@code filtercheck}, {@code calib}; purpose
 * lower-case letters), {@code <pid>} the creating process. {@link #removeStale} removes every
 * instance of that shape whose process no longer runs; it runs before each instance is created.
 * (Test instances, {@code tracewire-test-<pid>-<purpose>}, do not have this shape; tests remove their own.)
 */
public final class OwnInstances {
    /** The shape of every name tracewire gives an instance: group 1 the purpose (or null), group 2 the pid. */
    public static final Pattern NAME = Pattern.compile("tracewire-(?:([a-z]+)-)?(\\d+)");

    private OwnInstances() {
    }

    /**
     * The instance name for this process and a purpose.
     *
     * @param purpose null for a capture's instance, else lower-case letters ({@code filtercheck})
     * @return {@code tracewire-<pid>} or {@code tracewire-<purpose>-<pid>}
     * @throws IllegalArgumentException when the purpose is not lower-case letters
     */
    public static String name(String purpose) {
        long pid = ProcessHandle.current().pid();
        if (purpose == null) {
            return "tracewire-" + pid;
        }
        if (!purpose.matches("[a-z]+")) {
            throw new IllegalArgumentException("instance purpose must be lower-case letters: '" + purpose + "'");
        }
        return "tracewire-" + purpose + "-" + pid;
    }

    /** The pid a name of this shape carries; empty for any other name. */
    public static OptionalLong pid(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(2)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Removes every instance named by {@link #NAME} whose process no longer runs (tracing in it stops
     * with it: removing an instance frees its buffers).
     *
     * @param top the live tracefs
     * @return the names removed
     */
    public static List<String> removeStale(Tracefs top) {
        List<String> removed = new ArrayList<>();
        for (String name : top.instanceNames()) {
            OptionalLong pid = pid(name);
            if (pid.isPresent() && !ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    top.instance(name).close();
                    removed.add(name);
                } catch (TracefsException e) {
                    // another run may be removing it at the same moment; it is gone or stays for the next one
                }
            }
        }
        return removed;
    }

    /**
     * Creates this process's instance for a purpose: removes stale instances ({@link #removeStale})
     * and a leftover of this process under the same name first.
     *
     * @param top     the live tracefs
     * @param purpose as {@link #name(String)}
     * @return the new instance
     * @throws TracefsException when it cannot be created (not root, a snapshot)
     */
    public static TracefsInstance create(Tracefs top, String purpose) {
        removeStale(top);
        String name = name(purpose);
        if (top.instanceNames().contains(name)) {
            top.instance(name).close();
        }
        return top.createInstance(name);
    }
}
