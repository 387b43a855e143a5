package org.tracewire.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.tracewire.tracefs.TracefsException;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Keeps a capture from tracing itself: every thread of the given processes goes into the
 * instance's {@code set_event_notrace_pid}, with {@code options/event-fork} on, so the kernel adds
 * the threads and children they create later and drops those that exit ({@code trace_events.c}:
 * {@code event_filter_pid_sched_process_fork} / {@code _exit}). The list applies to every event of
 * the instance. It is the kernel's own mechanism: a task in the list records nothing, except a
 * {@code sched_switch} / {@code sched_wakeup} whose other task is not in the list.
 *
 * <p>Without it a capture of, say, {@code syscalls:sys_enter_write} with a TAP output records its
 * own {@code write()} of each frame, which is another event, which is another frame: feedback
 * until the buffer overflows. trace-cmd filters its own threads out the same way by default
 * ({@code --no-filter} keeps them); {@code capture --trace-self} and the backend's
 * {@code traceSelf} keep ours.
 */
public final class SelfExclusion {
    /** Rounds of listing threads and appending the new ones before the list must be stable. */
    static final int ROUNDS = 8;

    private SelfExclusion() {
    }

    /** The thread ids of a process ({@code /proc/PID/task}); empty when it is gone. */
    public static Set<Long> tasks(long pid) {
        Set<Long> out = new TreeSet<>();
        try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            s.forEach(p -> {
                try {
                    out.add(Long.parseLong(p.getFileName().toString()));
                } catch (NumberFormatException ignored) {
                    // not a task
                }
            });
        } catch (IOException e) {
            // gone
        }
        return out;
    }

    private static Set<Long> tasks(Collection<Long> pids) {
        Set<Long> all = new TreeSet<>();
        for (long pid : pids) {
            all.addAll(tasks(pid));
        }
        return all;
    }

    /** The pids in the instance's {@code set_event_notrace_pid}. */
    public static Set<Long> listed(TracefsInstance instance) {
        Set<Long> out = new TreeSet<>();
        for (String line : instance.read("set_event_notrace_pid").split("\\s+")) {
            if (!line.isBlank()) {
                out.add(Long.parseLong(line.strip()));
            }
        }
        return out;
    }

    /**
     * Excludes every thread of the processes from the instance's events and verifies it by reading
     * the list back: each thread alive after the read-back must be in it.
     *
     * @param instance  the capture's instance (events not enabled yet)
     * @param processes process ids (each process's threads are listed from {@code /proc})
     * @return the thread ids written
     * @throws TracefsException when the kernel lacks the files or the read-back misses a thread
     */
    public static Set<Long> apply(TracefsInstance instance, Collection<Long> processes) {
        if (!instance.exists("set_event_notrace_pid") || !instance.exists("options/event-fork")) {
            throw new TracefsException("this kernel has no set_event_notrace_pid / options/event-fork: cannot keep "
                    + "the capture from tracing itself (give --trace-self to capture anyway)");
        }
        instance.write("options/event-fork", "1");
        Set<Long> written = new TreeSet<>();
        for (int round = 0; round < ROUNDS; round++) {
            // threads started since the last round were started by listed threads only if the
            // kernel already had those: list again until nothing is new
            Set<Long> fresh = tasks(processes);
            fresh.removeAll(written);
            if (fresh.isEmpty()) {
                break;
            }
            String text = fresh.stream().map(String::valueOf).collect(Collectors.joining(" ")) + "\n";
            if (written.isEmpty()) {
                instance.write("set_event_notrace_pid", text);
            } else {
                instance.append("set_event_notrace_pid", text);
            }
            written.addAll(fresh);
        }
        // a thread alive before and after the read-back existed when the kernel printed its list
        Set<Long> missing = tasks(processes);
        Set<Long> listed = listed(instance);
        missing.retainAll(tasks(processes));
        missing.removeAll(listed);
        if (!missing.isEmpty()) {
            throw new TracefsException("set_event_notrace_pid of " + instance.name() + " lacks threads " + missing
                    + " of processes " + processes + " after writing them");
        }
        return written;
    }

    /**
     * Warnings for events that can feed back on the capture: each event of ours (a frame written,
     * a page read) can cause further events.
     *
     * @param events    the selected events
     * @param traceSelf the capture's own threads are traced
     * @param tap       frames go to a network interface (a capture tool on it is not excluded)
     * @return one line per concern, empty when none
     */
    public static List<String> feedbackWarnings(List<EventSelection> events, boolean traceSelf, boolean tap) {
        List<String> out = new ArrayList<>();
        for (EventSelection e : events) {
            String sys = e.system();
            String ev = e.event();
            boolean syscall = sys.equals("raw_syscalls") || sys.equals("syscalls");
            if (traceSelf && (syscall || sys.equals("sched") || sys.equals("net") || sys.equals("skb")
                    || sys.equals("napi") || sys.equals("irq") || sys.equals("timer") || sys.equals("kmem")
                    || sys.equals("writeback") || sys.equals("block") || sys.equals("ext4") || sys.equals("filemap"))) {
                out.add(e.fullName() + " records tracewire's own threads (trace-self): each frame written or page read"
                        + " causes more of them (feedback); expect the rate to climb until the buffer overflows");
            } else if (tap && (sys.equals("net") || sys.equals("skb") || sys.equals("napi")
                    || (syscall && (ev.contains("read") || ev.contains("recv") || ev.contains("poll")
                    || ev.contains("select") || sys.equals("raw_syscalls"))))) {
                out.add(e.fullName() + " can still feed back through the interface: tracewire's own threads are "
                        + "excluded, but a capture tool reading the interface (Wireshark, dumpcap) and the kernel's "
                        + "network processing of each frame are not");
            }
        }
        return out;
    }
}
