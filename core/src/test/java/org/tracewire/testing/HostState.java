package org.tracewire.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.tracewire.tracefs.Tracefs;

/**
 * What tracewire must leave as it found it: the top-level tracing settings, the tracefs
 * instances, and the network interfaces. Taken before and after a test: equal, or, where other
 * test JVMs may trace meanwhile, nothing of this JVM's left ({@link #leftSince(HostState)}).
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

    /** The owner's pid in {@code tracewire-PID}, {@code tracewire-test-PID-PURPOSE}, {@code tracewire-x-PID}. */
    private static final Pattern OWNER = Pattern.compile("tracewire-(?:[a-z]+-)*(\\d+)(?:-.*)?");

    /**
     * What this JVM left changed since {@code before}, on a machine where other test JVMs trace at
     * the same time (the live tests that run two at a time, cli's {@code concurrent} tag): the
     * top-level settings and the instances and interfaces not named like tracewire's must be as
     * they were; a tracewire instance or interface that appeared since is left only when a live
     * process outside this JVM's tree owns it (the pid in the instance's name; the TAP's holder,
     * from {@code /proc/PID/fdinfo}'s {@code iff:} line). One that disappeared is another test's
     * that ended. Empty when nothing is left.
     *
     * @return one line per difference, e.g. {@code "instance left: tracewire-123"}
     */
    public List<String> leftSince(HostState before) {
        List<String> left = new ArrayList<>();
        if (!settings.equals(before.settings)) {
            left.add("settings " + before.settings + " -> " + settings);
        }
        if (!others(instances, "tracewire-").equals(others(before.instances, "tracewire-"))) {
            left.add("other instances " + before.instances + " -> " + instances);
        }
        if (!others(interfaces, "tw").equals(others(before.interfaces, "tw"))) {
            left.add("other interfaces " + before.interfaces + " -> " + interfaces);
        }
        Set<Long> ours = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
        ours.add(ProcessHandle.current().pid());
        for (String name : tracewireInstances()) {
            Matcher m = OWNER.matcher(name);
            long pid = m.matches() ? Long.parseLong(m.group(1)) : -1;
            if (!before.instances.contains(name) && !someoneElses(pid, ours)) {
                left.add("instance left: " + name);
            }
        }
        for (String name : tracewireInterfaces()) {
            if (!before.interfaces.contains(name) && tapHolders(name).stream().noneMatch(pid -> someoneElses(pid, ours))) {
                left.add("interface left: " + name);
            }
        }
        return left;
    }

    private static List<String> others(List<String> names, String prefix) {
        return names.stream().filter(n -> !n.startsWith(prefix)).toList();
    }

    private static boolean someoneElses(long pid, Set<Long> ours) {
        return pid > 0 && !ours.contains(pid) && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Processes holding a {@code /dev/net/tun} descriptor attached to interface {@code name}. */
    private static List<Long> tapHolders(String name) {
        List<Long> holders = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try (Stream<Path> fds = Files.list(proc.resolve("fdinfo"))) {
                    for (Path fd : fds.toList()) {
                        if (Files.readAllLines(fd).contains("iff:\t" + name)) {
                            holders.add(Long.parseLong(proc.getFileName().toString()));
                        }
                    }
                } catch (IOException gone) {
                    // the process or descriptor ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return holders;
    }
}
