package org.tracewire.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.tracewire.capture.CaptureRun;
import org.tracewire.capture.EventSelection;
import org.tracewire.capture.FilterRejectedException;
import org.tracewire.capture.TapDevice;
import org.tracewire.protocol.Protocol;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.WireFrame;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire capture}: records trace events in an instance of our own and emits each as an
 * Ethernet frame ({@code docs/wire-format.md}) on a TAP interface (default {@code tw0}), an
 * existing interface and/or a pcapng file. A {@code -f} applies to the {@code -e} before it, as
 * in trace-cmd. Needs root.
 */
@Command(name = "capture", mixinStandardHelpOptions = true, description = "Capture trace events as Ethernet frames (TAP interface, existing interface, pcapng).")
public final class CaptureCommand implements Callable<Integer> {
    /** One {@code -e SYSTEM:EVENT [-f FILTER]} pair. */
    static final class EventArg {
        @Option(names = "-e", required = true, paramLabel = "SYSTEM:EVENT", description = "An event to capture.")
        String event;
        @Option(names = "-f", paramLabel = "FILTER", description = "Kernel filter for the -e before it.")
        String filter;
    }

    @ArgGroup(exclusive = false, multiplicity = "1..*")
    List<EventArg> events = new ArrayList<>();

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Stop after this many seconds.")
    double duration;

    @Option(names = "--count", paramLabel = "N", description = "Stop after N events.")
    long count;

    @Option(names = "-i", paramLabel = "IFACE", description = "TAP interface to create (default: " + Protocol.DEFAULT_IFACE + ").")
    String iface;

    @Option(names = "--no-iface", description = "Do not create a TAP interface.")
    boolean noIface;

    @Option(names = "--send-on", paramLabel = "IFACE", description = "Also send on this existing interface (libpcap).")
    String sendOn;

    @Option(names = "-w", paramLabel = "FILE.pcapng", description = "Write a pcapng file.")
    Path pcapng;

    @Mixin
    BufferOptions buffer = new BufferOptions();


    @Option(names = "--delay", paramLabel = "SECONDS",
            description = "Wait this long after creating the outputs before tracing (time to start a capture tool).")
    double delay;

    @Option(names = "--linger", paramLabel = "SECONDS", defaultValue = "1",
            description = "Keep the TAP interface this long after the last frame (default: 1).")
    double linger;

    @Option(names = "--max-frame", paramLabel = "BYTES", description = "Largest frame incl. Ethernet header (default: 1514).")
    int maxFrame = WireFrame.DEFAULT_MAX_FRAME;

    @Option(names = "--trace-self", description = "Also record tracewire's own threads (excluded by default through "
            + "the instance's set_event_notrace_pid; like trace-cmd's --no-filter). Beware feedback.")
    boolean traceSelf;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (duration < 0 || count < 0 || buffer.bufferKb < 0 || delay < 0 || linger < 0) {
            throw new Main.UsageException("--duration, --count, --delay and --buffer-kb must not be negative");
        }
        if (noIface && iface != null) {
            throw new Main.UsageException("-i and --no-iface contradict each other");
        }
        String tap = noIface ? null : iface != null ? iface : Protocol.DEFAULT_IFACE;
        if (tap != null) {
            try {
                TapDevice.checkName(tap);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
        }
        if (tap == null && sendOn == null && pcapng == null) {
            throw new Main.UsageException("no output: drop --no-iface, or give --send-on IFACE or -w FILE.pcapng");
        }
        List<EventSelection> selections = new ArrayList<>();
        for (EventArg e : events) {
            try {
                selections.add(EventSelection.parse(e.event, e.filter));
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
        }
        Tracefs top = Tracefs.live();
        for (EventSelection s : selections) {
            try {
                new EventSelector(s.system(), s.event()).resolve(top);
            } catch (IllegalArgumentException ex) {
                throw new Main.UsageException(ex.getMessage());
            }
        }
        CaptureRun.Options o = new CaptureRun.Options(selections, duration, count, tap, sendOn, pcapng,
                buffer.bufferKb, buffer.clock, maxFrame, delay, linger, traceSelf);
        try {
            org.tracewire.capture.Capture.Summary s = CaptureRun.run(top, o, err);
            out.println(s.describe());
            return 0;
        } catch (FilterRejectedException e) {
            err.println("capture: " + e.getMessage());
            return Main.EXIT_FAILURE;
        }
    }
}
