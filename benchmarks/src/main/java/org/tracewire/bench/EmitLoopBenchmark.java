package org.tracewire.bench;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.tracewire.capture.CaptureContext;
import org.tracewire.capture.CaptureEngine;
import org.tracewire.capture.WarmUp;
import org.tracewire.capture.ClockSync;
import org.tracewire.format.EventFormat;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.ringbuffer.SubBufferLayout;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlanner;

/**
 * The capture emitter's whole per-record path, as a capture runs it: {@link CaptureEngine}'s emit
 * loop (the merge of the CPUs' cursors, {@code FrameSink.event} with the context check, the
 * EPB written into a pcapng that discards its bytes) over the synthetic sub-buffers its JIT
 * warm-up builds ({@link WarmUp#run}: rounds of 32 full 4-KiB pages per CPU, the events'
 * records in turn, through one frame sink for {@link #BUDGET_NS}). It reaches the engine through
 * that public entry only. The pages stay in cache, so a live capture, whose pages come
 * from the drainers' CPUs, pays more per record (docs/capture.md, 2026-11-25: 29–30 ns per getppid
 * record in this loop against 38–41 ns live).
 *
 * <p>Score: the secondary result {@code records}, records emitted per second (ns per record =
 * 1e9 / it); the primary, invocations per second, follows the budget. {@code events=getppid} is
 * the full-speed syscall workload's two events (16- and 24-byte payloads), {@code sched}
 * sched_switch + sched_wakeup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EmitLoopBenchmark {
    /** How long one invocation runs rounds through the same frame sink, ns. */
    static final long BUDGET_NS = 20_000_000L;

    /** Records emitted, reported by JMH per second. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Records {
        public long records;
    }

    /** Which events' records fill the pages. */
    @Param({"getppid", "sched"})
    public String events;

    SubBufferLayout layout;
    Map<Integer, EventFormat> formats;
    CaptureContext context;
    final List<Integer> cpus = List.of(0, 1);

    @Setup(Level.Trial)
    public void setup() throws Exception {
        KernelLayout kernel = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        layout = new SubBufferLayout(kernel, 0, 8, 8, 16, 4096, HeaderEvent.standard());
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        String[] names = switch (events) {
            case "getppid" -> new String[] {"syscalls:sys_enter_getppid", "syscalls:sys_exit_getppid"};
            case "sched" -> new String[] {"sched:sched_switch", "sched:sched_wakeup"};
            default -> throw new IllegalArgumentException("events " + events);
        };
        formats = new TreeMap<>();
        for (String n : names) {
            String[] p = n.split(":");
            EventFormat f = snap.format(p[0], p[1]);
            formats.put(f.id(), f);
        }
        var capture = new ContextMessages.Capture("bench", "6.18.0", "boot", "host", "mono", 1000, 5, kernel,
                snap.read("events/header_page"), null, Map.of("HZ", 250L), "bench", List.of(names));
        Kallsyms none = Kallsyms.parse("");
        context = new CaptureContext(capture, snap.formats().byId(), kernel,
                f -> snap.read("events/" + f.system() + "/" + f.name() + "/format"), () -> none,
                PrintkFormats.parse(snap.read("printk_formats")), KernelEnums::empty, 250, KernelVariables.empty(),
                pid -> new ContextPlanner.Task(pid, "bench"), f -> new byte[0]);
    }

    /** Rounds of the emit loop over every CPU's synthetic pages for {@link #BUDGET_NS}. */
    @Benchmark
    public long emit(Records counted) throws Exception {
        long n = WarmUp.run(layout, formats, ClockSync.none(), context, cpus, BUDGET_NS);
        counted.records += n;
        return n;
    }
}
