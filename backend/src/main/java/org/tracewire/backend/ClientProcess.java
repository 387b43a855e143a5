package org.tracewire.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * The process of the backend's client (the desktop app): the backend's parent, skipping the
 * privilege helpers in between ({@code pkexec} execs the backend, so it is the app's child already;
 * {@code sudo} stays as its parent, sometimes twice with a monitor process). The app passes nothing:
 * the process tree says who started the backend, and no client can name another process to hide.
 * Never pid 1 (a backend whose client died was reparented to init).
 */
public final class ClientProcess {
    /** Commands ({@code /proc/PID/comm}) skipped on the way up. */
    static final Set<String> HELPERS = Set.of("sudo", "pkexec");

    private ClientProcess() {
    }

    /** The client of this backend process, or empty when there is none to name. */
    public static Optional<Long> find() {
        return find(ProcessHandle.current().pid());
    }

    /**
     * The first ancestor of {@code pid} that is not a privilege helper.
     *
     * @param pid a process id
     * @return its client's pid, or empty (no parent, or pid 1)
     */
    public static Optional<Long> find(long pid) {
        long p = parent(pid);
        for (int depth = 0; depth < 8 && p > 1; depth++) {
            if (!HELPERS.contains(comm(p))) {
                return Optional.of(p);
            }
            p = parent(p);
        }
        return Optional.empty();
    }

    private static long parent(long pid) {
        return ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(0L);
    }

    private static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
