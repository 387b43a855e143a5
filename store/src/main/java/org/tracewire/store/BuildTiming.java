package org.tracewire.store;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The build phase's own CPU time, for {@code scripts/bench-store.sh}: with {@code TRACEWIRE_TIMING}
 * set, a build of {@link StoreFiles} prints to standard error, at its commit and after its
 * checkpoint, the process CPU time (all threads: ours, the JIT's, the collector's, DuckDB's; ns from
 * {@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime}) and the wall time since the
 * builder started reading events, so the figure leaves out the JVM's start, DuckDB's load and the
 * views (the whole JVM's figure keeps them). Line shape:
 * {@code timing: store build commit events=N cpu_s=S wall_s=S events_per_cpu_s=R}.
 * Without the variable it does nothing (no management bean loaded).
 */
final class BuildTiming {
    private static final BuildTiming OFF = new BuildTiming(null, 0, 0);
    private final OperatingSystemMXBean os;
    private final long cpu0;
    private final long wall0;

    private BuildTiming(OperatingSystemMXBean os, long cpu0, long wall0) {
        this.os = os;
        this.cpu0 = cpu0;
        this.wall0 = wall0;
    }

    /** Starts timing when {@code TRACEWIRE_TIMING} is set, else a timing that prints nothing. */
    static BuildTiming start() {
        if (System.getenv("TRACEWIRE_TIMING") == null
                || !(ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os)) {
            return OFF;
        }
        return new BuildTiming(os, os.getProcessCpuTime(), System.nanoTime());
    }

    /** Prints the CPU and wall time since {@link #start()} at {@code phase}, for {@code events} events. */
    void report(String phase, long events) {
        if (os == null) {
            return;
        }
        double cpu = (os.getProcessCpuTime() - cpu0) / 1e9;
        double wall = (System.nanoTime() - wall0) / 1e9;
        System.err.printf("timing: store build %s events=%d cpu_s=%.3f wall_s=%.3f events_per_cpu_s=%.0f%n",
                phase, events, cpu, wall, cpu > 0 ? events / cpu : 0);
    }
}
