package org.tracewire.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.tracewire.tracefs.Tracefs;

/**
 * What tracewire must leave as it found it: the top-level tracing settings, the tracefs
 * instances, and the network interfaces. Taken before and after a test; the two must be equal.
 *
 * @param settings   top-level {@code tracing_on}, {@code current_tracer}, {@code trace_clock},
 *                   {@code buffer_size_kb}, {@code set_event}, {@code trace_options}
 * @param instances  names under {@code instances/}
 * @param interfaces names under {@code /sys/class/net}
 */
public record HostState(List<String> settings, List<String> instances, List<String> interfaces) {
    /** Reads the state now. */
    public static HostState of(Tracefs top) {
        List<String> settings = Stream.of("tracing_on", "current_tracer", "trace_clock", "buffer_size_kb", "set_event",
                "trace_options").map(f -> f + "=" + top.read(f).strip()).toList();
        List<String> ifaces;
        try (Stream<Path> s = Files.list(Path.of("/sys/class/net"))) {
            ifaces = s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            ifaces = List.of("<unreadable: " + e.getMessage() + ">");
        }
        return new HostState(settings, top.instanceNames(), ifaces);
    }

    /** Interfaces named like tracewire's ({@code tw*}). */
    public List<String> tracewireInterfaces() {
        return interfaces.stream().filter(n -> n.startsWith("tw")).toList();
    }

    /** Instances named like tracewire's ({@code tracewire-*}). */
    public List<String> tracewireInstances() {
        return instances.stream().filter(n -> n.startsWith("tracewire-")).toList();
    }
}
