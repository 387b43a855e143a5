package org.tracewire.printfmt;

import java.util.HashMap;
import java.util.Map;

/**
 * Values of enum constants that kernels leave unresolved in print fmts (no {@code TRACE_DEFINE_ENUM}
 * for them), so that {@code __print_symbolic}/{@code __print_flags} tables using them can be
 * evaluated (internal). Only constants whose values are ABI or long-stable are listed:
 * TCP states ({@code include/net/tcp_states.h}), I/O priority classes
 * ({@code include/uapi/linux/ioprio.h}), hrtimer modes ({@code include/linux/hrtimer_types.h}, since
 * 4.16) (the inode state bits of {@code include/linux/fs.h} are left out: they
 * move between releases). Any other identifier stays unresolved: a record whose rendering
 * needs it falls back.
 */
final class KnownConstants {
    static final Map<String, Long> VALUES;

    static {
        Map<String, Long> m = new HashMap<>();
        String[] tcp = {"TCP_ESTABLISHED", "TCP_SYN_SENT", "TCP_SYN_RECV", "TCP_FIN_WAIT1", "TCP_FIN_WAIT2",
            "TCP_TIME_WAIT", "TCP_CLOSE", "TCP_CLOSE_WAIT", "TCP_LAST_ACK", "TCP_LISTEN", "TCP_CLOSING",
            "TCP_NEW_SYN_RECV"};
        for (int i = 0; i < tcp.length; i++) {
            m.put(tcp[i], (long) i + 1);
        }
        m.put("IOPRIO_CLASS_NONE", 0L);
        m.put("IOPRIO_CLASS_RT", 1L);
        m.put("IOPRIO_CLASS_BE", 2L);
        m.put("IOPRIO_CLASS_IDLE", 3L);
        m.put("IOPRIO_CLASS_INVALID", 7L);
        String[] hr = {"HRTIMER_MODE_ABS", "HRTIMER_MODE_REL", "HRTIMER_MODE_ABS_PINNED", "HRTIMER_MODE_REL_PINNED",
            "HRTIMER_MODE_ABS_SOFT", "HRTIMER_MODE_REL_SOFT", "HRTIMER_MODE_ABS_PINNED_SOFT",
            "HRTIMER_MODE_REL_PINNED_SOFT", "HRTIMER_MODE_ABS_HARD", "HRTIMER_MODE_REL_HARD",
            "HRTIMER_MODE_ABS_PINNED_HARD", "HRTIMER_MODE_REL_PINNED_HARD"};
        for (int i = 0; i < hr.length; i++) {
            m.put(hr[i], (long) i);
        }
        VALUES = Map.copyOf(m);
    }

    private KnownConstants() {
    }
}
