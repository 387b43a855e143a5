package org.tracewire.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.capture.CaptureSession;
import org.tracewire.capture.EventSelection;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;

/**
 * The text of tracewire's Wireshark extcap: what it answers to {@code --extcap-interfaces},
 * {@code --extcap-dlts} and {@code --extcap-config}, and how the configured options become a
 * capture's event selections. The sentence syntax ({@code extcap {version=…}},
 * {@code interface {value=…}{display=…}}, {@code dlt {number=…}…}, {@code arg {number=…}{call=…}…},
 * {@code value {arg=…}…}) follows Wireshark's extcap documentation ({@code doc/extcap.adoc},
 * {@code doc/extcap_example.py}). Values must not contain braces.
 */
public final class ExtcapProtocol {
    /** The interface name Wireshark lists ({@code tshark -D}) and passes as {@code --extcap-interface}. */
    public static final String INTERFACE = "tracewire";
    /** The interface's display name. */
    public static final String DISPLAY = "tracewire: Linux trace events";
    /** Events captured when none are configured. */
    public static final String DEFAULT_EVENTS = "sched:sched_switch,sched:sched_wakeup";
    /** DLT 1, Ethernet: every frame is Ethernet II with EtherType 0x88B5. */
    public static final int DLT_ETHERNET = 1;
    /** Clocks offered when the live tracefs cannot be read (this kernel's {@code trace_clock}). */
    static final List<String> FALLBACK_CLOCKS =
            List.of("local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "tai", "x86-tsc");

    private ExtcapProtocol() {
    }

    /**
     * The answer to {@code --extcap-interfaces}: the extcap's version line and one interface.
     *
     * @param version tracewire's version
     * @return the lines
     */
    public static List<String> interfaces(String version) {
        return List.of("extcap {version=" + version + "}",
                "interface {value=" + INTERFACE + "}{display=" + DISPLAY + "}");
    }

    /** The answer to {@code --extcap-dlts}: Ethernet (DLT 1). */
    public static List<String> dlts() {
        return List.of("dlt {number=" + DLT_ETHERNET + "}{name=EN10MB}{display=Ethernet (tracewire frames, EtherType 0x88B5)}");
    }

    /**
     * The answer to {@code --extcap-config}: the options Wireshark shows in the interface's
     * options dialog and accepts as {@code -o extcap.tracewire.NAME:VALUE} (NAME is the call
     * without dashes: {@code events}, {@code filters}, {@code bufferkb}, {@code clock},
     * {@code installdissector}).
     *
     * @param clocks the kernel's trace clocks (the selector's values); {@code mono} is the default
     * @return the lines
     */
    public static List<String> config(List<String> clocks) {
        List<String> l = new ArrayList<>();
        l.add("arg {number=0}{call=--events}{display=Events}{type=string}{required=true}"
                + "{default=" + DEFAULT_EVENTS + "}"
                + "{validation=^ *[A-Za-z0-9_]+:([A-Za-z0-9_]+|[*])( *, *[A-Za-z0-9_]+:([A-Za-z0-9_]+|[*]))* *$}"
                + "{tooltip=Comma-separated SYSTEM:EVENT or SYSTEM:* (all events of a system)}{group=Events}");
        l.add("arg {number=1}{call=--filters}{display=Kernel filters}{type=string}"
                + "{tooltip=EVENT=FILTER;EVENT=FILTER, e.g. sched:sched_switch=prev_pid != 0 (the kernel's filter syntax; "
                + "checked by the kernel before tracing starts)}{group=Events}");
        l.add("arg {number=2}{call=--buffer-kb}{display=Buffer size (KiB per CPU)}{type=unsigned}"
                + "{default=" + CaptureSession.DEFAULT_BUFFER_KB + "}{range=0,4194304}"
                + "{tooltip=Ring buffer per CPU in KiB; 0 keeps the kernel's}{group=Capture}");
        l.add("arg {number=3}{call=--clock}{display=Trace clock}{type=selector}"
                + "{tooltip=The kernel's trace clock; counter clocks (counter, uptime, x86-tsc) are not converted to wall-clock time}"
                + "{group=Capture}");
        for (String c : clocks) {
            l.add("value {arg=3}{value=" + c + "}{display=" + c + "}{default=" + c.equals("mono") + "}");
        }
        l.add("arg {number=4}{call=--install-dissector}{display=Install the Lua dissector}{type=boolean}{default=true}"
                + "{tooltip=At capture start, (re)write tracewire.lua for this kernel into the personal Lua plugin folder "
                + "when it changed; Wireshark loads it at its next start}{group=Capture}");
        return l;
    }

    /**
     * Turns the configured events and filters into capture selections, checked against the live
     * tracefs the way {@code tracewire capture} checks {@code -e} ({@link EventSelector}); the
     * filters themselves are checked by the kernel when the capture session opens.
     *
     * @param tracefs the live tracefs
     * @param events  comma- or space-separated {@code SYSTEM:EVENT} / {@code SYSTEM:*}
     * @param filters {@code EVENT=FILTER} entries separated by {@code ;}; EVENT is one of the
     *                events or selectors given; null or blank for none
     * @return one selection per event, in order, without duplicates
     * @throws IllegalArgumentException for a malformed or unknown event, or a filter for an event
     *                                  not selected
     */
    public static List<EventSelection> selections(Tracefs tracefs, String events, String filters) {
        Map<String, String> byEvent = parseFilters(filters);
        Set<String> used = new LinkedHashSet<>();
        Map<String, EventSelection> out = new LinkedHashMap<>();
        String[] parts = events == null ? new String[0] : events.trim().split("[,\\s]+");
        for (String p : parts) {
            if (p.isEmpty()) {
                continue;
            }
            EventSelector sel = EventSelector.parse(p);
            for (String name : sel.resolve(tracefs)) {
                String f = byEvent.containsKey(name) ? name : byEvent.containsKey(p) ? p : null;
                if (f != null) {
                    used.add(f);
                }
                out.putIfAbsent(name, EventSelection.parse(name, f == null ? null : byEvent.get(f)));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no events given (e.g. " + DEFAULT_EVENTS + ")");
        }
        for (String k : byEvent.keySet()) {
            if (!used.contains(k)) {
                throw new IllegalArgumentException("kernel filter for '" + k + "', which is not among the events");
            }
        }
        return List.copyOf(out.values());
    }

    /**
     * Parses {@code EVENT=FILTER;EVENT=FILTER}.
     *
     * @param filters the text, null or blank for none
     * @return filter per event key, in order
     * @throws IllegalArgumentException for an entry without {@code =} or with an empty filter, or
     *                                  an event named twice
     */
    static Map<String, String> parseFilters(String filters) {
        Map<String, String> m = new LinkedHashMap<>();
        if (filters == null || filters.isBlank()) {
            return m;
        }
        for (String entry : filters.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            if (eq <= 0 || entry.substring(eq + 1).isBlank()) {
                throw new IllegalArgumentException("kernel filter '" + entry.strip() + "' is not EVENT=FILTER");
            }
            String event = entry.substring(0, eq).strip();
            EventSelector.parse(event);
            if (m.put(event, entry.substring(eq + 1).strip()) != null) {
                throw new IllegalArgumentException("two kernel filters for '" + event + "'");
            }
        }
        return m;
    }
}
