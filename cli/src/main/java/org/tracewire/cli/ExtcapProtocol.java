package org.tracewire.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.capture.CaptureSession;
import org.tracewire.protocol.Messages;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.EventSelector;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.wire.FrameEncoder;

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
    /** The interface that captures on another host over SSH ({@code capture --remote}). */
    public static final String INTERFACE_SSH = "tracewire-ssh";
    /** Its display name. */
    public static final String DISPLAY_SSH = "tracewire over SSH: Linux trace events of another host";
    /** Events captured when none are configured. */
    public static final String DEFAULT_EVENTS = "sched:sched_switch,sched:sched_wakeup";
    /** DLT 162, LINKTYPE_USER15: bare tracewire frames ({@code docs/wire-format.md} §1), as the capture streams them. */
    public static final int DLT_TRACEWIRE = FrameEncoder.LINKTYPE;

    /**
     * Why a capture filter is refused, for an interface: tracewire filters in the kernel, per event.
     * One line: Wireshark shows the first line of a validation answer under its filter bar.
     *
     * @param iface {@link #INTERFACE} or {@link #INTERFACE_SSH}
     * @return the message, without a trailing newline
     */
    public static String captureFilterRefusal(String iface) {
        return "capture filters are not supported by " + iface + ": filter in the kernel with the interface's "
                + "'Kernel filters' option (-o extcap." + iface + ".filters:EVENT=FILTER), or use a display filter";
    }
    /** Clocks offered when the live tracefs cannot be read (this kernel's {@code trace_clock}). */
    static final List<String> FALLBACK_CLOCKS =
            List.of("local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "tai", "x86-tsc");

    private ExtcapProtocol() {
    }

    /**
     * The answer to {@code --extcap-interfaces}: the extcap's version line and two interfaces,
     * {@value #INTERFACE} (this host) and {@value #INTERFACE_SSH} (another host over SSH).
     *
     * @param version tracewire's version
     * @return the lines
     */
    public static List<String> interfaces(String version) {
        return List.of("extcap {version=" + version + "}",
                "interface {value=" + INTERFACE + "}{display=" + DISPLAY + "}",
                "interface {value=" + INTERFACE_SSH + "}{display=" + DISPLAY_SSH + "}");
    }

    /**
     * The answer to {@code --extcap-config} for {@value #INTERFACE_SSH}, with sshdump's option
     * names for the connection: {@code remotehost}, {@code remoteport}, {@code remoteusername},
     * {@code sshkey}, then {@code remotepath}, {@code sshoptions}, {@code events} (one event per
     * entry: {@code SYSTEM:*} is resolved only by a local capture), {@code filters},
     * {@code bufferkb}, {@code clock} (a name, since the remote kernel's clocks are not known here).
     *
     * @return the lines
     */
    public static List<String> configSsh() {
        List<String> l = new ArrayList<>();
        l.add("arg {number=0}{call=--remote-host}{display=Remote SSH server address}{type=string}{required=true}"
                + "{tooltip=The host to capture on (it needs tracewire and root login by key)}{group=Server}");
        l.add("arg {number=1}{call=--remote-port}{display=Remote SSH server port}{type=unsigned}{default=22}{range=1,65535}"
                + "{tooltip=The SSH port}{group=Server}");
        l.add("arg {number=2}{call=--remote-username}{display=Remote SSH server username}{type=string}{default=root}"
                + "{tooltip=Capturing needs root on the remote host}{group=Authentication}");
        l.add("arg {number=3}{call=--sshkey}{display=Path to SSH private key}{type=fileselect}"
                + "{tooltip=The key for the login (empty: ssh's defaults and agent; passwords are never asked)}"
                + "{group=Authentication}");
        l.add("arg {number=4}{call=--remote-path}{display=Remote tracewire folder}{type=string}"
                + "{tooltip=The folder of the tracewire launcher on the remote host (empty: its PATH)}{group=Server}");
        l.add("arg {number=5}{call=--ssh-options}{display=ssh options}{type=string}"
                + "{tooltip=Options for ssh -o, separated by ; (e.g. UserKnownHostsFile=/path;ConnectTimeout=5)}{group=Server}");
        l.add("arg {number=6}{call=--events}{display=Events}{type=string}{required=true}"
                + "{default=" + DEFAULT_EVENTS + "}"
                + "{validation=^ *[A-Za-z0-9_]+:[A-Za-z0-9_]+( *, *[A-Za-z0-9_]+:[A-Za-z0-9_]+)* *$}"
                + "{tooltip=Comma-separated SYSTEM:EVENT (checked by the remote host's kernel)}{group=Events}");
        l.add("arg {number=7}{call=--filters}{display=Kernel filters}{type=string}"
                + "{tooltip=EVENT=FILTER;EVENT=FILTER, e.g. sched:sched_switch=prev_pid != 0 (checked by the remote kernel)}"
                + "{group=Events}");
        l.add("arg {number=8}{call=--buffer-kb}{display=Buffer size (KiB per CPU)}{type=unsigned}"
                + "{default=" + CaptureSession.DEFAULT_BUFFER_KB + "}{range=0,4194304}"
                + "{tooltip=Ring buffer per CPU in KiB on the remote host; 0 keeps its kernel's}{group=Capture}");
        l.add("arg {number=9}{call=--clock}{display=Trace clock}{type=string}{default=mono}"
                + "{tooltip=The remote kernel's trace clock (mono, local, boot, ...)}{group=Capture}");
        return l;
    }

    /**
     * The remote capture's event arguments for the {@value #INTERFACE_SSH} interface:
     * {@code -e SYSTEM:EVENT [-f FILTER]} per event, checked for their form here (the remote
     * kernel checks that they exist and accepts the filters).
     *
     * @param events  comma- or space-separated {@code SYSTEM:EVENT}
     * @param filters {@code EVENT=FILTER} entries separated by {@code ;}, or null
     * @return the arguments
     * @throws IllegalArgumentException for {@code SYSTEM:*}, a malformed event, or a filter for an
     *                                  event not given
     */
    public static List<String> remoteEventArgs(String events, String filters) {
        List<String> args = new ArrayList<>();
        for (EventSelection e : namedEvents(events, filters, "over SSH")) {
            args.add("-e");
            args.add(e.fullName());
            if (e.filter() != null) {
                args.add("-f");
                args.add(e.filter());
            }
        }
        return args;
    }

    /**
     * The events of a capture through the privileged backend (the extcap run by a user who is not
     * root), as {@code startCapture} takes them: checked for their form here, the backend checks
     * that they exist and the kernel accepts the filters.
     *
     * @param events  comma- or space-separated {@code SYSTEM:EVENT}
     * @param filters {@code EVENT=FILTER} entries separated by {@code ;}, or null
     * @return the events, in the order given, each with its filter or null
     * @throws IllegalArgumentException as {@link #remoteEventArgs}
     */
    public static List<Messages.CaptureEvent> backendEvents(String events, String filters) {
        return namedEvents(events, filters, "through the backend (not root)").stream()
                .map(Messages.CaptureEvent::of).toList();
    }

    /** Events named one by one ({@code SYSTEM:*} is resolved only where tracefs is readable), with their filters. */
    private static List<EventSelection> namedEvents(String events, String filters, String where) {
        Map<String, String> byEvent = parseFilters(filters);
        List<EventSelection> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (String p : events == null ? new String[0] : events.trim().split("[,\\s]+")) {
            if (p.isEmpty() || !seen.add(p)) {
                continue;
            }
            if (!EventSelector.parse(p).isOneEvent()) {
                throw new IllegalArgumentException("'" + p + "': " + where + " name each event (SYSTEM:EVENT); "
                        + "SYSTEM, SYSTEM:* and globs are resolved only by a local capture as root");
            }
            out.add(EventSelection.parse(p, byEvent.get(p)));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no events given (e.g. " + DEFAULT_EVENTS + ")");
        }
        for (String k : byEvent.keySet()) {
            if (!seen.contains(k)) {
                throw new IllegalArgumentException("kernel filter for '" + k + "', which is not among the events");
            }
        }
        return out;
    }

    /** The answer to {@code --extcap-dlts}: LINKTYPE_USER15 (DLT 162), the link type of the pcapng the capture streams. */
    public static List<String> dlts() {
        return List.of("dlt {number=" + DLT_TRACEWIRE + "}{name=USER15}{display=tracewire frames (LINKTYPE_USER15)}");
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
