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
import org.tracewire.format.SyscallEvents;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.EventSelector;
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
 * until the buffer overflows. trace-cmd names the same idea: its {@code --no-filter} keeps its own
 * threads (its {@code record -k -d} of 3.1.6 sets no filter and no pid list, checked during a run:
 * docs/capture.md, "Never tracing ourselves"); {@code capture --trace-self} and the backend's
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

    /** The instance's list of tasks whose events are not recorded. */
    static final String NOTRACE_PIDS = "set_event_notrace_pid";
    /** The instance's list of tasks whose events alone are recorded (when not empty). */
    static final String TRACE_PIDS = "set_event_pid";

    /** The pids in the instance's {@code set_event_notrace_pid}. */
    public static Set<Long> listed(TracefsInstance instance) {
        return listed(instance, NOTRACE_PIDS);
    }

    static Set<Long> listed(TracefsInstance instance, String pidFile) {
        Set<Long> out = new TreeSet<>();
        for (String line : instance.read(pidFile).split("\\s+")) {
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
        return list(instance, NOTRACE_PIDS, processes, "cannot keep the capture from tracing itself (give "
                + "--trace-self to capture anyway)");
    }

    /**
     * Writes every thread of the processes into one of the instance's pid lists
     * ({@value #NOTRACE_PIDS} or {@value #TRACE_PIDS}) with {@code options/event-fork} on, so the
     * kernel adds the threads and children they start later, and reads the list back.
     *
     * @param pidFile   the list's file name in the instance
     * @param processes process ids
     * @param without   what the capture cannot do when the kernel lacks the files (for the error)
     * @return the thread ids written
     * @throws TracefsException when the kernel lacks the files or the read-back misses a thread
     */
    static Set<Long> list(TracefsInstance instance, String pidFile, Collection<Long> processes, String without) {
        if (!instance.exists(pidFile) || !instance.exists("options/event-fork")) {
            throw new TracefsException("this kernel has no " + pidFile + " / options/event-fork: " + without);
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
                instance.write(pidFile, text);
            } else {
                instance.append(pidFile, text);
            }
            written.addAll(fresh);
        }
        // a thread alive before and after the read-back existed when the kernel printed its list
        Set<Long> missing = tasks(processes);
        Set<Long> listed = listed(instance, pidFile);
        missing.retainAll(tasks(processes));
        missing.removeAll(listed);
        if (!missing.isEmpty()) {
            throw new TracefsException(pidFile + " of " + instance.name() + " lacks threads " + missing
                    + " of processes " + processes + " after writing them");
        }
        return written;
    }

    /**
     * The system calls a capture process makes, any thread of it, at any time: what
     * {@code strace -f} saw of a whole {@code ./tracewire capture} from the JVM's start (the
     * launcher's shell before it is not the capture) to its exit, the JVM's own threads included,
     * plus those of the outputs and the backend that run did not use (a TAP's
     * {@code ioctl}, a FIFO's or socket's writes, the app's socket, the file's last
     * {@code ftruncate}). While tracing, the capture's own threads made {@code read} (a sub-buffer,
     * a stats file), {@code futex} (hand-offs), {@code write} (a file block, a frame, a progress
     * line), {@code poll}, {@code openat} / {@code close} / {@code lseek} / {@code newfstatat} /
     * {@code pread64} (stats files), {@code mprotect} / {@code mmap} / {@code munmap} (the JVM)
     * and a few more ({@code strace -f} of a capture; {@code OwnSyscallsLiveTest} checks that a capture's own
     * threads call nothing else). A {@code syscalls} event of any other call cannot record our
     * threads, so it cannot feed back.
     */
    public static final Set<String> OWN_SYSCALLS = Set.of(
            // while tracing (strace -f of a capture, 2026-11-25)
            "read", "write", "futex", "gettid", "mprotect", "lseek", "openat", "newfstatat", "close", "poll",
            "pread64", "mmap", "munmap", "clock_nanosleep", "sched_getaffinity", "sched_setaffinity",
            "rt_sigreturn", "rt_sigprocmask", "readlink", "prctl",
            // from the JVM's start to its exit (it may make them again at any time), its child processes' too
            "rt_sigaction", "statx", "getdents64", "access", "fcntl", "set_robust_list", "rseq", "clone3", "madvise",
            "brk", "dup", "dup2", "prlimit64", "exit", "exit_group", "getpid", "socket", "socketpair", "pipe2",
            "ioctl", "unlink", "mkdir", "rmdir", "sched_yield", "geteuid", "getuid", "fchdir", "getcwd", "statfs",
            "fstatfs", "set_tid_address", "getrandom", "ftruncate", "execve", "arch_prctl", "sysinfo", "connect",
            "setsockopt", "getsockname", "wait4", "uname", "flock", "clock_getres",
            // the outputs and the backend that run did not use (TAP, FIFO, the app's socket) and their kin
            "writev", "pwrite64", "pwritev", "readv", "ppoll", "epoll_wait", "epoll_pwait", "epoll_ctl", "sendto",
            "sendmsg", "recvfrom", "recvmsg", "accept", "accept4", "bind", "listen", "shutdown", "fchown", "fsync",
            "fdatasync", "kill", "tgkill", "nanosleep", "fstat", "clone", "clock_gettime",
            // the spool of a capture into a file, its watchdog, files written as the invoking user
            "fallocate", "msync", "renameat", "renameat2", "unlinkat", "mkdirat", "setsid", "setfsuid", "setfsgid",
            "setgroups", "capget", "capset");

    /** Systems whose events a capture's own work causes (wake-ups, timers, allocations, block and file writes). */
    private static final Set<String> OWN_WORK_SYSTEMS = Set.of("sched", "irq", "timer", "kmem", "writeback", "block",
            "ext4", "filemap");

    /** Calls a capture makes for every frame of a network output: each frame's call is an event of its own. */
    private static final Set<String> PER_FRAME_SYSCALLS = Set.of("write", "writev", "sendto", "sendmsg");

    /**
     * Warnings for events that can feed back on the capture: events of its own threads' work (a
     * page read, a frame or a block written, a thread woken) when they are traced, and, with a
     * network output, events of what each frame causes outside the capture.
     *
     * <p>With {@code traceSelf}: a {@code syscalls} event of a call in {@link #OWN_SYSCALLS} (or any
     * {@code raw_syscalls} event), and the systems our work shows up in ({@code sched}, {@code irq},
     * {@code timer}, {@code kmem}, {@code writeback}, {@code block}, {@code ext4}, {@code filemap},
     * {@code net}, {@code skb}, {@code napi}); a call the capture never makes ({@code getppid}) gets
     * no warning. With a network output as well, a per-frame call ({@code write}, {@code sendto}
     * ...), {@code raw_syscalls} or a network event makes at least one more event per frame: that
     * feedback grows until the buffer overflows, and the warning says so.
     *
     * @param events    the selected events; an event name {@code *} stands for all of its system
     * @param traceSelf the capture's own threads are traced
     * @param tap       frames go to a network interface (a capture tool on it is not excluded)
     * @return one line per concern, empty when none
     */
    public static List<String> feedbackWarnings(List<EventSelection> events, boolean traceSelf, boolean tap) {
        List<String> out = new ArrayList<>();
        for (EventSelection e : events) {
            String sys = e.system();
            String ev = e.event();
            boolean raw = sys.equals("raw_syscalls");
            boolean syscall = raw || sys.equals("syscalls");
            boolean whole = ev.equals(EventSelector.WHOLE_SYSTEM);
            String call = sys.equals("syscalls") ? SyscallEvents.callName(ev) : null; // null for other names too
            boolean net = sys.equals("net") || sys.equals("skb") || sys.equals("napi");
            boolean ownWork = raw || net || (syscall && (whole || (call != null && OWN_SYSCALLS.contains(call))))
                    || OWN_WORK_SYSTEMS.contains(sys);
            boolean perFrame = tap && (raw || net
                    || (syscall && (whole || (call != null && PER_FRAME_SYSCALLS.contains(call)))));
            if (traceSelf && perFrame) {
                out.add(e.fullName() + " records tracewire's own threads (trace-self), and each frame sent to the"
                        + " interface makes at least one more of it (feedback): expect the rate to climb until the"
                        + " buffer overflows");
            } else if (traceSelf && ownWork) {
                out.add(e.fullName() + " records tracewire's own threads too (trace-self): their work for each page"
                        + " read and each block or frame written shows up in it (feedback)");
            } else if (tap && (net || raw || (syscall && (whole || ev.contains("read") || ev.contains("recv")
                    || ev.contains("poll") || ev.contains("select"))))) {
                out.add(e.fullName() + " can still feed back through the interface: tracewire's own threads are "
                        + "excluded, but a capture tool reading the interface (Wireshark, dumpcap) and the kernel's "
                        + "network processing of each frame are not");
            }
        }
        return out;
    }
}
