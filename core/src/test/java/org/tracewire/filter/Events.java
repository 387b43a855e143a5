package org.tracewire.filter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** The events the filter tests use, parsed from this kernel's snapshot. */
final class Events {
    static final List<String> NAMES = List.of("sched:sched_switch", "sched:sched_wakeup",
            "syscalls:sys_enter_openat", "irq:irq_handler_entry", "kmem:kmalloc");

    private static final Map<String, EventFormat> CACHE = new HashMap<>();

    private Events() {
    }

    static synchronized EventFormat get(String fullName) {
        return CACHE.computeIfAbsent(fullName, n -> {
            String[] p = n.split(":", 2);
            return Tracefs.open(Prerequisites.snapshot()).format(p[0], p[1]);
        });
    }

    static EventFormat sched_switch() {
        return get("sched:sched_switch");
    }
}
