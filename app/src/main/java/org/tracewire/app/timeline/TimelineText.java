package org.tracewire.app.timeline;

/**
 * The timeline's times as text: trace-clock times as the kernel prints them, durations in the unit
 * that reads best, and the markers' line (KernelShark's "A: … B: … Δ(B−A): …").
 */
public final class TimelineText {
    private TimelineText() {
    }

    /**
     * A trace-clock time as the kernel prints it: seconds since boot with six decimals
     * ({@code 1234.567890}); negative times keep their sign.
     */
    public static String traceTime(long ns) {
        long us = Math.floorDiv(ns, 1000);
        return String.format("%s%d.%06d", us < 0 ? "-" : "", Math.abs(us) / 1_000_000, Math.abs(us) % 1_000_000);
    }

    /** A duration (ns) in the unit that reads best: ns, µs, ms or s. */
    public static String duration(long ns) {
        long a = Math.abs(ns);
        if (a < 1_000) {
            return ns + " ns";
        }
        if (a < 1_000_000) {
            return String.format("%.3f µs", ns / 1e3);
        }
        if (a < 1_000_000_000) {
            return String.format("%.3f ms", ns / 1e6);
        }
        return String.format("%.6f s", ns / 1e9);
    }

    /** "A: s.µs  B: s.µs  Δ(B−A): …"; "" with no marker (null: not set). */
    public static String markerText(Long a, Long b) {
        StringBuilder sb = new StringBuilder();
        if (a != null) {
            sb.append("A: ").append(traceTime(a)).append(" s");
        }
        if (b != null) {
            sb.append(sb.length() == 0 ? "" : "   ").append("B: ").append(traceTime(b)).append(" s");
        }
        if (a != null && b != null) {
            sb.append("   Δ(B−A): ").append(duration(b - a));
        }
        return sb.toString();
    }

}
