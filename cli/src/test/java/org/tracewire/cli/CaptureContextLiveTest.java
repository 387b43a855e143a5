package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.input.PcapngInput;
import org.tracewire.record.EventRecord;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;
import org.tracewire.testing.HostState;
import org.tracewire.testing.LoopbackTraffic;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.WireContext;

/**
 * Self-describing captures on the live kernel ({@code docs/wire-format.md}): a capture of a broad
 * mix of events (24 events of 10 systems: scheduler, timers, memory pages and slabs, workqueues,
 * socket buffers, soft irqs, signals, tasks, network devices, a syscall) is read back by
 * {@link PcapngInput} from the file alone (no tracefs: the formats, constants, symbols, strings and
 * tasks come from its context frames) and every event is rendered; at least 99.5% equal a second
 * instance's kernel text of the same event ({@link CaptureOracle}). And the size: bytes per event of
 * a sched capture against the raw ring-buffer record.
 */
@Tag("live")
class CaptureContextLiveTest {
    static final List<String> MIX = List.of(
            "sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_fork", "sched:sched_process_exec",
            "timer:hrtimer_start", "timer:hrtimer_expire_entry", "timer:timer_start",
            "kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:kmalloc", "kmem:kfree",
            "workqueue:workqueue_queue_work", "workqueue:workqueue_execute_start",
            "skb:kfree_skb", "skb:consume_skb",
            "irq:softirq_entry", "irq:softirq_exit",
            "signal:signal_generate", "signal:signal_deliver",
            "task:task_newtask", "task:task_rename",
            "net:net_dev_queue", "net:netif_receive_skb",
            "syscalls:sys_enter_openat");

    /** Files, loopback TCP, forks and execs, a rename, signals, sleeps: every event above fires. */
    static void workload(Path dir) {
        try {
            long until = System.nanoTime() + 2_000_000_000L;
            int round = 0;
            while (System.nanoTime() < until) {
                Path f = dir.resolve("w" + (round % 4));
                Files.write(f, new byte[65536 * (1 + round % 3)]);
                Files.readAllBytes(f);
                LoopbackTraffic.send(20, 4000);
                new ProcessBuilder("sh", "-c", "printf tw-renamed > /proc/self/comm; sleep 0.01 & kill -USR1 $! 2>/dev/null;"
                        + " for i in 1 2 3; do /bin/true; done; ls / > /dev/null; sleep 0.02")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
                round++;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aBroadMixRendersFromTheFileAloneAsTheKernelPrintsIt(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        List<String> events = new ArrayList<>();
        for (String e : MIX) {
            String[] se = e.split(":");
            if (top.exists("events/" + se[0] + "/" + se[1] + "/enable")) {
                events.add(e);
            }
        }
        Set<String> systems = new TreeSet<>();
        events.forEach(e -> systems.add(e.substring(0, e.indexOf(':'))));
        assertTrue(events.size() >= 20 && systems.size() >= 10, "this kernel has " + events + " of " + MIX);
        Path out = dir.resolve("mix.pcapng");
        List<String> args = new ArrayList<>();
        events.forEach(e -> {
            args.add("-e");
            args.add(e);
        });
        args.addAll(List.of("--duration", "3", "-w", out.toString(), "--no-iface"));
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-mix", events, args, () -> workload(dir));
        assertEquals(0, run.exit(), run.stdout() + run.stderr());
        System.out.println(run.stderr().lines().filter(l -> l.contains("events read")).findFirst().orElse(""));

        CaptureOracle.Comparison c = CaptureOracle.compare(out, run.kernel());
        System.out.print(c.report());
        try (PcapngInput in = PcapngInput.open(out)) {
            WireContext ctx = in.context();
            System.out.printf(Locale.ROOT, "context: %d formats, %d tasks, constants %s, problems %s%n",
                    ctx.catalog().formats().size(), ctx.tasks().size(), ctx.constants(), ctx.problems());
            assertEquals(List.of(), ctx.problems());
        }
        long seen = c.perEvent().values().stream().filter(a -> a[0] > 0).count();
        assertTrue(seen >= 15, "only " + seen + " of the events fired: " + c.perEvent().keySet());
        assertTrue(c.frames() > 1000, "only " + c.frames() + " events");
        assertTrue(c.rate() >= 0.995, "match rate " + c.rate());
        assertEquals(List.of(), HostState.of(top).leftSince(before), "tracing settings, instances or interfaces changed");
    }

    /**
     * Bytes per event of a sched capture: the event frame (16-byte header + the record payload)
     * against the raw ring-buffer record (payload + its 4-byte header, + 4 when the length is stored
     * apart, over 112 bytes), and the pcapng file per event (the 32-byte EPB, padding, context frames,
     * section and interface blocks included).
     */
    @Test
    void bytesPerEventOfASchedCapture(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Prerequisites.requireTool("stress-ng");
        Path out = dir.resolve("sched.pcapng");
        String[] load = {""};
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-size", List.of("sched:sched_switch"),
                List.of("-e", "sched:sched_switch", "-e", "sched:sched_wakeup", "--duration", "2", "-w", out.toString(),
                        "--no-iface"), () -> {
                    try {
                        load[0] = CaptureOracle.sh("stress-ng", "--switch", "2", "--switch-freq", "50000", "-t", "1");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        assertEquals(0, run.exit(), run.stderr());
        long events = 0;
        long payload = 0;
        long raw = 0;
        long frameBytes = 0;
        for (WireFrames.Decoded d : WireFrames.read(out)) {
            if (d.isEvent()) {
                int n = d.frame().body().remaining();
                events++;
                payload += n;
                raw += n + 4 + (n > 112 ? 4 : 0);
                frameBytes += 16 + n;
            }
        }
        long file = Files.size(out);
        double rawPer = (double) raw / events;
        double framePer = (double) frameBytes / events;
        double filePer = (double) file / events;
        System.out.printf(Locale.ROOT, "sched capture: %d events, mean payload %.1f B, raw record %.1f B, frame %.1f B "
                        + "(%.3f x raw), pcapng %.1f B per event (%.3f x raw; EPB and context included)%n", events,
                (double) payload / events, rawPer, framePer, framePer / rawPer, filePer, filePer / rawPer);
        // too few: did the load run? the oracle instance's sched_switch lines and stress-ng's words say
        assertTrue(events > 10_000, events + " events; the oracle instance saw "
                + run.kernel().values().stream().mapToLong(Integer::longValue).sum() + " sched_switch lines; stress-ng: "
                + load[0].strip());
        assertTrue(framePer <= 1.3 * rawPer, "frame " + framePer + " B vs raw " + rawPer + " B");
        assertTrue(filePer <= 1.3 * rawPer + 32 + 1, "file " + filePer + " B per event vs raw " + rawPer + " B + EPB 32");
    }

    /**
     * Short-lived processes are named: {@code sh -c 'for i in $(seq 200); do /bin/true; done'}, captured
     * at {@code sys_enter_openat} (no comm field) and {@code sched_process_exec}: every {@code true}
     * process is gone before the capture looks it up in {@code /proc}, yet, reading the file front to
     * back, each event of a {@code true} process finds it named {@code true} by the PROCESS context
     * sent so far (from the exec event's file name, or the kernel's {@code saved_cmdlines}), and no
     * event's task is unknown. (Pids are reused within seconds here: names count at the time.)
     */
    @Test
    void shortLivedProcessesAreNamed(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        Path out = dir.resolve("true.pcapng");
        CaptureOracle.Run run = CaptureOracle.run(top, "oracle-true", List.of("sched:sched_process_exec"),
                List.of("-e", "syscalls:sys_enter_openat", "-e", "sched:sched_process_exec", "--duration", "3", "-w",
                        out.toString(), "--no-iface"), () -> {
                    try {
                        CaptureOracle.sh("sh", "-c", "for i in $(seq 200); do /bin/true; done");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        assertEquals(0, run.exit(), run.stderr());
        // in stream order, as a reader going front to back sees it (pids are reused: the names at the time count)
        Map<Integer, EventFormat> formats = new HashMap<>();
        Map<Integer, String> comms = new HashMap<>();
        Set<Integer> runningTrue = new TreeSet<>();
        long execs = 0;
        long events = 0;
        long trueEvents = 0;
        List<String> wrong = new ArrayList<>();
        for (WireFrames.Decoded d : WireFrames.read(out)) {
            if (d.message() != null && d.kind() == FrameKind.FORMAT) {
                String name = d.message().text(ContextMessage.FORMAT_NAME);
                EventFormat f = FormatParser.parse(name.substring(0, name.indexOf(':')),
                        d.message().text(ContextMessage.FORMAT_TEXT), name);
                formats.put(f.id(), f);
            } else if (d.message() != null && d.kind() == FrameKind.PROCESS) {
                for (ContextMessage.Item i : d.message().all(ContextMessage.PROCESS_TASK)) {
                    comms.put(i.buffer().getInt(0), new String(i.value(), 8, i.value().length - 8, StandardCharsets.UTF_8));
                }
            } else if (d.isEvent()) {
                events++;
                EventFormat f = formats.get(d.frame().eventId());
                EventRecord r = new EventRecord(f, new KernelLayout(d.frame().header().byteOrder(), 8), 0, 0,
                        d.frame().body());
                if (f.name().equals("sched_process_exec")) {
                    int pid = (int) r.integer(f.field("pid"));
                    if (r.string(f.field("filename")).equals("/bin/true")) {
                        runningTrue.add(pid);
                        execs++;
                    } else {
                        runningTrue.remove(pid);
                    }
                }
                String comm = comms.get(r.pid());
                if (comm == null || comm.equals("<...>")) {
                    wrong.add(r.pid() + " unnamed");
                } else if (runningTrue.contains(r.pid())) {
                    trueEvents++;
                    if (!comm.equals("true") && wrong.size() < 20) {
                        wrong.add(r.pid() + " named " + comm);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "short-lived: %d execs of /bin/true, %d events, %d of them by true; misnamed %s%n",
                execs, events, trueEvents, wrong);
        assertTrue(execs >= 190, execs + " execs of /bin/true");
        assertTrue(trueEvents >= execs, trueEvents + " events by true processes");
        assertEquals(List.of(), wrong);
    }
}
