package org.tracewire.capture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlan;
import org.tracewire.wire.ContextPlanner.Task;
import org.tracewire.wire.ContextPlanner.Tasks;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.description.EventDescription;

/**
 * What a capture knows about the traced kernel and host, for the context messages that make its
 * frames self-describing ({@code docs/wire-format.md} §4, sent by {@link ContextPlanner}): the
 * CAPTURE message's parts, every captured event's format and its text as tracefs gave it, the
 * kernel's symbols ({@code /proc/kallsyms}), {@code printk_formats}, BTF enum constants, {@code HZ},
 * calibrated kernel variables, and where task names and thread groups come from ({@link Tasks}).
 *
 * <p>Expensive parts are loaded only when the captured events need them and in the background:
 * kallsyms when a print fmt prints a symbol, the BTF enums when a print fmt names
 * an identifier, the calibration of {@code vmemmap_base} / {@code sizeof(struct page)}
 * ({@link KernelContext#calibrated}: a scratch instance for a moment, once per process) when a print
 * fmt uses them.
 * A part that cannot be read stays unknown: the receiver's text falls back where it needs it.
 *
 * @param capture      the CAPTURE message's parts
 * @param formats      formats by event id (the captured events)
 * @param layout       the traced kernel's byte order and long size
 * @param formatText   an event's {@code format} file text as tracefs gives it (null when unreadable)
 * @param symbols      the kernel's symbols (loaded on first call; null when unknown)
 * @param printk       the kernel's {@code printk_formats}
 * @param enums        BTF enum constants (loaded on first call; never null)
 * @param hz           {@code CONFIG_HZ}, 0 when unknown
 * @param variables    calibrated kernel variables and type sizes
 * @param tasks        pid → tgid and comm
 * @param descriptions the dissector's description tree of an event (FORMAT item 4), or null for none
 */
public record CaptureContext(ContextMessages.Capture capture, Map<Integer, EventFormat> formats, KernelLayout layout,
                             Function<EventFormat, String> formatText, Supplier<SymbolResolver> symbols,
                             PrintkFormats printk, Supplier<KernelEnums> enums, int hz, KernelVariables variables,
                             Tasks tasks, Function<EventFormat, byte[]> descriptions) {

    public CaptureContext {
        Objects.requireNonNull(capture, "capture");
        formats = Map.copyOf(formats);
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(printk, "printk");
        Objects.requireNonNull(variables, "variables");
        Objects.requireNonNull(tasks, "tasks");
    }

    /**
     * The context planner of a capture with this context ({@link #sources}).
     *
     * @param out where its messages go
     * @return a new planner (one per file written)
     */
    public ContextPlanner planner(ContextPlanner.Out out) {
        return new ContextPlanner(sources(), out);
    }

    /**
     * What this context gives a {@link ContextPlanner} ({@link ContextPlanner.Naming#LIVE}): user
     * stacks are resolved through {@code /proc} ({@link UserSymbols}, made on first need) while their
     * processes live.
     *
     * @return the sources (each call its own user stack resolver)
     */
    public ContextPlanner.Sources sources() {
        UserSymbols[] users = {null};
        ContextPlanner.UserStacks stacks = (tgid, address) -> {
            if (users[0] == null) {
                users[0] = new UserSymbols(Path.of("/proc"));
            }
            UserSymbols.Symbol s = users[0].lookup(tgid, address);
            return s == null ? null : new ContextPlanner.UserSymbol(s.name(), s.start(), s.size(), s.file(), s.buildId());
        };
        return new ContextPlanner.Sources(ContextMessages.capture(capture), layout, formatText, descriptions, symbols,
                printk, enums, hz, variables, tasks, stacks, ContextPlanner.Naming.LIVE);
    }

    /** This context with task names from {@code other} (the next file of a ring: {@link KnownTasks}). */
    public CaptureContext withTasks(Tasks other) {
        return new CaptureContext(capture, formats, layout, formatText, symbols, printk, enums, hz, variables, other,
                descriptions);
    }

    /**
     * The context of a live capture.
     *
     * @param top       the live tracefs
     * @param session   the capture's session (its events, clock, instance)
     * @param clockName the trace clock's name, or null
     * @return the context; parts that cannot be read are left unknown
     */
    public static CaptureContext live(Tracefs top, CaptureSession session, String clockName) {
        return of(top, session.events(), session.namingEvents(), session.layout(), session.clock(), clockName, null);
    }

    /** {@link #of(Tracefs, List, List, org.tracewire.ringbuffer.SubBufferLayout, ClockSync, String, String)} without naming events. */
    public static CaptureContext of(Tracefs top, List<EventSelection> events, SubBufferLayout subLayout,
                                    ClockSync clock, String clockName, String captureId) {
        return of(top, events, List.of(), subLayout, clock, clockName, captureId);
    }

    /**
     * The context of a capture of this host's kernel, as {@link #live}; for {@code tracewire recover},
     * which frames a killed capture's spool with that capture's events, layout, clock and id.
     *
     * @param top       the live tracefs
     * @param events    the selected events (with the stack records they ask for: {@link EventSelection#recorded})
     * @param naming    the events read only to follow task names ({@link TaskNaming}): their formats
     *                  are known, they are not named in CAPTURE
     * @param subLayout the instance's sub-buffer layout
     * @param clock     the trace clock's offset to wall time
     * @param clockName the trace clock's name, or null
     * @param captureId the capture's id, or null for a new one
     * @return the context; parts that cannot be read are left unknown
     */
    public static CaptureContext of(Tracefs top, List<EventSelection> events, List<EventSelection> naming,
                                    SubBufferLayout subLayout, ClockSync clock, String clockName,
                                    String captureId) {
        Map<Integer, EventFormat> formats = new LinkedHashMap<>();
        Map<Integer, String> texts = new HashMap<>();
        List<String> names = new ArrayList<>();
        List<EventSelection> recorded = EventSelection.recorded(events);
        List<EventSelection> all = new ArrayList<>(recorded);
        all.addAll(naming);
        for (EventSelection e : all) {
            if (recorded.contains(e)) {
                names.add(e.fullName());
            }
            try {
                String text = top.read("events/" + e.system() + "/" + e.event() + "/format");
                EventFormat f = FormatParser.parse(e.system(), text, e.fullName());
                formats.put(f.id(), f);
                texts.put(f.id(), text);
            } catch (RuntimeException ex) {
                // an event whose format does not parse: its records are counted as unknown
            }
        }
        ContextPlan.Needs needs = ContextPlan.needs(formats.values(), subLayout.kernel());
        CompletableFuture<SymbolResolver> symbols = needs.symbols()
                ? CompletableFuture.supplyAsync(CaptureContext::loadKallsyms, CaptureContext::daemon)
                : CompletableFuture.completedFuture(null);
        CompletableFuture<KernelEnums> enums = needs.identifiers()
                ? CompletableFuture.supplyAsync(CaptureContext::loadEnums, CaptureContext::daemon)
                : CompletableFuture.completedFuture(KernelEnums.empty());
        KernelVariables variables = needs.calibration() ? KernelContext.calibrated(top) : KernelVariables.empty();
        PrintkFormats printk = needs.printk() ? KernelContext.printk(top) : PrintkFormats.empty();
        int hz = KernelContext.configHz(Path.of("/proc/config.gz"));
        Map<String, Long> constants = ContextMessages.constants(hz, variables);
        String host = SectionInfo.hostName();
        long pid = ProcessHandle.current().pid();
        long startNs = ClockSync.epochNanos(Instant.now());
        String version = SectionInfo.host().userApplication().replaceFirst("^tracewire ", "");
        ContextMessages.Capture capture = new ContextMessages.Capture(
                captureId != null ? captureId : host + "/" + startNs + "/" + pid,
                readOr(Path.of("/proc/sys/kernel/osrelease"), System.getProperty("os.version")),
                readOr(Path.of("/proc/sys/kernel/random/boot_id"), null),
                host, clockName,
                clock.measured() ? -clock.offsetNs() : 0,
                clock.measured() ? clock.errorNs() : -1,
                subLayout.kernel(),
                readOr(top, "events/header_page"), readOr(top, "events/header_event"),
                constants, version, names);
        Function<EventFormat, String> text = f -> {
            String t = texts.get(f.id());
            return t != null ? t : readOr(top, "events/" + f.system() + "/" + f.name() + "/format");
        };
        return new CaptureContext(capture, formats, subLayout.kernel(), text, symbols::join, printk,
                enums::join, hz, variables, new ProcTasks(top),
                f -> EventDescription.encode(f, subLayout.kernel().longSize(), null));
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "tracewire-context-load");
        t.setDaemon(true);
        t.start();
    }

    private static SymbolResolver loadKallsyms() {
        try {
            Kallsyms k = Kallsyms.load(Path.of("/proc/kallsyms"));
            return k.size() > 0 ? k : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static KernelEnums loadEnums() {
        try {
            return KernelEnums.load(Path.of("/sys/kernel/btf/vmlinux"));
        } catch (IOException | RuntimeException e) {
            return KernelEnums.empty();
        }
    }

    private static String readOr(Path p, String fallback) {
        try {
            return Files.readString(p).strip();
        } catch (IOException | RuntimeException e) {
            return fallback;
        }
    }

    private static String readOr(Tracefs t, String relative) {
        try {
            return t.read(relative);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Tasks of this host: every task's name and thread group as {@code /proc} said when the
     * context was made (before tracing starts: a task that exits before it is framed keeps its
     * name), else {@code /proc/PID/comm} and the {@code Tgid:} of {@code /proc/PID/status} while
     * the task lives, else the kernel's {@code saved_cmdlines} (re-read at most every 100 ms), else
     * unknown. Names changed later come from the records ({@link TaskNaming}).
     */
    static final class ProcTasks implements Tasks {
        private final Tracefs top;
        private final Map<Integer, Task> atStart;
        private SavedCmdlines cmdlines = SavedCmdlines.empty();
        private long cmdlinesRead;

        ProcTasks(Tracefs top) {
            this.top = top;
            this.atStart = snapshot();
        }

        /** Every thread under {@code /proc/PID/task/TID/comm}: TID → (PID, comm). */
        private static Map<Integer, Task> snapshot() {
            Map<Integer, Task> m = new HashMap<>();
            try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                for (Path proc : procs) {
                    int tgid;
                    try {
                        tgid = Integer.parseInt(proc.getFileName().toString());
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    try (var threads = Files.newDirectoryStream(proc.resolve("task"))) {
                        for (Path t : threads) {
                            try {
                                String comm = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                                m.put(Integer.parseInt(t.getFileName().toString()), new Task(tgid, comm));
                            } catch (IOException | RuntimeException gone) {
                                // exited meanwhile
                            }
                        }
                    } catch (IOException | RuntimeException gone) {
                        // exited meanwhile
                    }
                }
            } catch (IOException | RuntimeException e) {
                // no /proc: names come from the other sources
            }
            return m;
        }

        @Override
        public Task lookup(int pid) {
            Task t = atStart.get(pid);
            if (t != null) {
                return t;
            }
            t = running(pid);
            if (t != null || pid <= 0) {
                return t;
            }
            long now = System.nanoTime();
            if (now - cmdlinesRead > 100_000_000L) {
                cmdlinesRead = now;
                try {
                    cmdlines = SavedCmdlines.parse(top.read("saved_cmdlines"));
                } catch (RuntimeException ignored) {
                    // keep the last
                }
            }
            String c = cmdlines.comm(pid);
            return c.equals("<...>") ? null : new Task(-1, c);
        }

        @Override
        public Task running(int pid) {
            if (pid <= 0) {
                return pid == 0 ? new Task(0, "<idle>") : null;
            }
            Path dir = Path.of("/proc", Integer.toString(pid));
            try {
                String comm = Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).strip();
                int tgid = -1;
                for (String line : Files.readAllLines(dir.resolve("status"), StandardCharsets.ISO_8859_1)) {
                    if (line.startsWith("Tgid:")) {
                        tgid = Integer.parseInt(line.substring(5).strip());
                        break;
                    }
                }
                return new Task(tgid, comm);
            } catch (IOException | RuntimeException gone) {
                return null; // exited
            }
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "CaptureContext[%d formats, hz %d]", formats.size(), hz);
    }
}
