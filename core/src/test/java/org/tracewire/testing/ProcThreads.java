package org.tracewire.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.stream.Stream;

/**
 * The kernel's view of this JVM's threads, from {@code /proc/self/task/TID} ({@code proc(5)}): a
 * thread's id by its name ({@code comm}, which the JVM sets from the Java thread's name, cut to 15
 * bytes) and the CPUs it may run on ({@code Cpus_allowed_list} of {@code status}).
 */
public final class ProcThreads {
    private ProcThreads() {
    }

    /**
     * The id of this JVM's thread whose {@code comm} is {@code name}.
     *
     * @throws AssertionError when no thread has that name
     */
    public static int idNamed(String name) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                if (Files.readString(t.resolve("comm")).strip().equals(name)) {
                    return Integer.parseInt(t.getFileName().toString());
                }
            }
        }
        throw new AssertionError("no thread named " + name);
    }

    /**
     * The CPUs thread {@code tid} of this JVM may run on, parsed from the kernel's list format
     * ({@code 0-3,8}).
     *
     * @throws AssertionError when its {@code status} has no {@code Cpus_allowed_list}
     */
    public static BitSet cpusAllowed(int tid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                BitSet cpus = new BitSet();
                for (String part : line.substring(line.indexOf(':') + 1).strip().split(",")) {
                    String[] range = part.split("-");
                    cpus.set(Integer.parseInt(range[0]), Integer.parseInt(range[range.length - 1]) + 1);
                }
                return cpus;
            }
        }
        throw new AssertionError("no Cpus_allowed_list for thread " + tid);
    }
}
