package org.tracewire.app.util;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.tracewire.posix.ThreadPriority;

/**
 * The app's background threads: daemons at {@link ThreadPriority#BACKGROUND} priority, so that
 * reading a capture, building its store (DuckDB's workers inherit the priority of the thread that
 * opens it) and the views' queries never keep the JavaFX thread waiting for a CPU, e.g. while a
 * live capture's workload and the backend use every CPU.
 */
public final class BackgroundThreads {
    private BackgroundThreads() {
    }

    /**
     * Threads named {@code name}, or {@code name-N} when {@code numbered}.
     *
     * @param name     the threads' name (e.g. {@code tracewire-store})
     * @param numbered true to number the threads (a pool)
     */
    public static ThreadFactory factory(String name, boolean numbered) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(() -> {
                ThreadPriority.setCurrent(ThreadPriority.BACKGROUND);
                r.run();
            }, numbered ? name + "-" + n.incrementAndGet() : name);
            t.setDaemon(true);
            return t;
        };
    }

    /** One background thread named {@code name} that runs what it is given, in order. */
    public static ExecutorService single(String name) {
        return Executors.newSingleThreadExecutor(factory(name, false));
    }
}
