package org.tracewire.capture;

import java.util.Locale;

/** The closing summary line of {@code ./tracewire capture}: counts, loss per CPU, CPU use, failed outputs. */
final class SummaryLine {
    private SummaryLine() {
    }

    /** The line for a capture's summary ({@link Capture.Summary#describe()}). */
    static String of(Capture.Summary s) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "capture: %.1f s, %d events read, %d frames emitted (%d of context, %d bytes), lost events:",
                s.seconds(), s.read() - s.namingRead(), s.frames(), s.contextFrames(), s.bytes()));
        for (CpuStats c : s.cpus()) {
            sb.append(String.format(Locale.ROOT, " cpu%d %d", c.cpu(), c.lost()));
        }
        if (s.agreesWithKernel()) {
            sb.append(" (read + lost = the kernel's count on every CPU)");
        } else {
            sb.append(" (the kernel's per-CPU stats differ:");
            for (CpuStats c : s.cpus()) {
                if (!c.agreesWithKernel()) {
                    sb.append(c.kernel() == null ? String.format(Locale.ROOT, " cpu%d stats not read", c.cpu())
                            : String.format(Locale.ROOT, " cpu%d read %d lost %d unread %d", c.cpu(),
                            c.kernel().readEvents(), c.kernel().lost(), c.kernel().entries()));
                }
            }
            sb.append(')');
        }
        sb.append(String.format(Locale.ROOT, ", cpu %.0f%% of one core while tracing",
                s.tracingSeconds() > 0 ? s.tracingCpuSeconds() / s.tracingSeconds() * 100 : 0));
        if (s.seconds() - s.tracingSeconds() >= 0.05 || s.readAheadBytes() > 0) {
            sb.append(String.format(Locale.ROOT, " (%.0f%% over %.1f s in all: framing went on %.1f s after tracing"
                    + "%s)", s.seconds() > 0 ? s.cpuSeconds() / s.seconds() * 100 : 0, s.seconds(),
                    s.seconds() - s.tracingSeconds(), s.readAheadBytes() > 0
                            ? String.format(Locale.ROOT, ", read-ahead %d MiB", s.readAheadBytes() >> 20) : ""));
        }
        for (OutputFailure f : s.outputFailures()) {
            sb.append(String.format(Locale.ROOT, "; %s failed (%s): it holds the first %d events, %d events read "
                    + "are not in it", f.output(), f.reason(), f.eventsWritten(), s.emitted() - f.eventsWritten()));
        }
        if (s.notFramed() > 0) {
            sb.append(String.format(Locale.ROOT, "; framing aborted: %d events read were not framed", s.notFramed()));
        }
        if (s.namingRead() > 0) {
            sb.append(String.format(Locale.ROOT, "; %d fork/exec/rename records read for task names only",
                    s.namingRead()));
        }
        if (!s.outputs().isEmpty()) {
            sb.append("; outputs: ").append(String.join(", ", s.outputs()));
        }
        return sb.toString();
    }
}
