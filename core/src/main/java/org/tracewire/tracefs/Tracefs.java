package org.tracewire.tracefs;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatException;
import org.tracewire.format.FormatParser;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.HeaderPage;
import org.tracewire.format.KernelLayout;

/**
 * A tracefs tree: the live one ({@code /sys/kernel/tracing}), an instance's view of it, or a
 * snapshot directory with the same layout (see {@code scripts/snapshot-tracefs.sh}). All reads go
 * through this one type, so browsing and parsing work the same on a snapshot.
 *
 * <p>Layout (kernel: {@code Documentation/trace/ftrace.rst}, {@code events.rst}):
 * {@code events/<system>/<event>/{format,id,enable,filter,trigger}}, {@code events/header_page},
 * {@code events/header_event}, {@code available_events}, {@code available_tracers},
 * {@code trace_clock}, {@code buffer_size_kb}, {@code printk_formats}, {@code instances/}.
 *
 * <p>Event metadata ({@code events/}, {@code printk_formats}, …) of an instance is read from the
 * instance; its {@code format} files equal the top level's.
 */
public class Tracefs {
    /** Where the kernel documents tracefs to be mounted. */
    public static final Path DEFAULT_MOUNT = Path.of("/sys/kernel/tracing");
    /** The older mount point, under debugfs. */
    public static final Path DEBUGFS_MOUNT = Path.of("/sys/kernel/debug/tracing");
    /** The properties file a snapshot carries (byte order, kernel release). */
    public static final String SNAPSHOT_PROPERTIES = "tracewire-snapshot.properties";

    private final Path root;
    private final boolean live;
    private final ByteOrder byteOrder;
    private final String label;

    /**
     * @param root      the directory holding {@code events/}
     * @param live      true for the kernel's tracefs, false for a snapshot
     * @param byteOrder byte order of the kernel whose data this tree describes
     * @param label     human-readable name, e.g. "live tracefs" or "snapshot of Linux 6.18"
     */
    protected Tracefs(Path root, boolean live, ByteOrder byteOrder, String label) {
        this.root = root;
        this.live = live;
        this.byteOrder = byteOrder;
        this.label = label;
    }

    /**
     * Opens the running kernel's tracefs: {@code /sys/kernel/tracing}, else the debugfs path; as
     * root, mounts tracefs at {@code /sys/kernel/tracing} when it is not mounted.
     *
     * @throws TracefsException when no tracefs can be found or mounted, or it is unreadable (not root)
     */
    public static Tracefs live() {
        for (Path p : List.of(DEFAULT_MOUNT, DEBUGFS_MOUNT)) {
            if (Files.isReadable(p.resolve("events/header_page"))) {
                return new Tracefs(p, true, ByteOrder.nativeOrder(), "live tracefs " + p);
            }
        }
        if (Files.isDirectory(DEFAULT_MOUNT) && isRoot()) {
            mount(DEFAULT_MOUNT);
            if (Files.isReadable(DEFAULT_MOUNT.resolve("events/header_page"))) {
                return new Tracefs(DEFAULT_MOUNT, true, ByteOrder.nativeOrder(), "live tracefs " + DEFAULT_MOUNT);
            }
        }
        if (!isRoot()) {
            throw new TracefsException("tracefs (" + DEFAULT_MOUNT + ") is readable by root only (mode 0700): run as root");
        }
        throw new TracefsException("no tracefs at " + DEFAULT_MOUNT + " or " + DEBUGFS_MOUNT
                + (isRoot() ? " and mounting it failed" : "; as root: mount -t tracefs nodev " + DEFAULT_MOUNT));
    }

    /**
     * Opens a directory with tracefs's layout: a snapshot (byte order from its
     * {@value #SNAPSHOT_PROPERTIES}, else the host's) or a live tracefs mount point.
     *
     * @throws TracefsException when {@code dir/events/header_page} is missing
     */
    public static Tracefs open(Path dir) {
        if (!Files.isReadable(dir.resolve("events/header_page"))) {
            throw new TracefsException(dir + " has no readable events/header_page: not a tracefs or snapshot");
        }
        Path props = dir.resolve(SNAPSHOT_PROPERTIES);
        if (Files.isRegularFile(props)) {
            Properties p = new Properties();
            try (var in = Files.newInputStream(props)) {
                p.load(in);
            } catch (IOException e) {
                throw new TracefsException("cannot read " + props + ": " + e.getMessage(), e);
            }
            ByteOrder order = "big".equals(p.getProperty("byte_order")) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            String release = p.getProperty("kernel.release", "unknown kernel");
            return new Tracefs(dir, false, order, "snapshot of Linux " + release.replaceFirst("^(\\d+\\.\\d+).*", "$1") + ", read only");
        }
        return new Tracefs(dir, true, ByteOrder.nativeOrder(), "tracefs " + dir);
    }

    /** True when the JVM runs as uid 0. */
    public static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static void mount(Path where) {
        try {
            Process p = new ProcessBuilder("mount", "-t", "tracefs", "nodev", where.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() != 0) {
                throw new TracefsException("mount -t tracefs nodev " + where + " failed: " + out);
            }
        } catch (IOException e) {
            throw new TracefsException("cannot run mount: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TracefsException("interrupted while mounting tracefs", e);
        }
    }

    /** The directory holding {@code events/}. */
    public Path root() {
        return root;
    }

    /** True for the kernel's tracefs (or an instance of it), false for a snapshot. */
    public boolean isLive() {
        return live;
    }

    /** "live tracefs /sys/kernel/tracing", "snapshot of Linux 6.18, read only", … */
    public String label() {
        return label;
    }

    /** Byte order of the kernel whose data this tree describes. */
    public ByteOrder byteOrder() {
        return byteOrder;
    }

    /** Reads a file relative to the root as text (UTF-8). @throws TracefsException when unreadable */
    public String read(String relative) {
        Path p = root.resolve(relative);
        try {
            // tracefs files report sizes unrelated to their content: read to EOF, never by size
            try (var in = Files.newInputStream(p)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new TracefsException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes text to a tracefs file, as {@code echo text > file} would.
     *
     * @throws TracefsException with the kernel's errno text when the write is refused, or on a snapshot
     */
    public void write(String relative, String text) {
        if (!live) {
            throw new TracefsException("cannot write " + relative + ": " + label);
        }
        Path p = root.resolve(relative);
        try (var out = Files.newOutputStream(p, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new TracefsException("writing '" + text.strip() + "' to " + p + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Appends text to a tracefs file, as {@code echo text >> file} would (opened with
     * {@code O_APPEND}, without {@code O_TRUNC}: pid lists such as {@code set_event_notrace_pid}
     * keep their entries, trace_events.c).
     *
     * @throws TracefsException with the kernel's errno text when the write is refused, or on a snapshot
     */
    public void append(String relative, String text) {
        if (!live) {
            throw new TracefsException("cannot write " + relative + ": " + label);
        }
        Path p = root.resolve(relative);
        try (var out = Files.newOutputStream(p, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new TracefsException("appending '" + text.strip() + "' to " + p + " failed: " + e.getMessage(), e);
        }
    }

    /** Whether a file exists relative to the root. */
    public boolean exists(String relative) {
        return Files.exists(root.resolve(relative));
    }

    /** The systems under {@code events/}, sorted. */
    public List<String> systems() {
        return listDirs(root.resolve("events"));
    }

    /** The events of a system, sorted. */
    public List<String> events(String system) {
        checkName(system);
        return listDirs(root.resolve("events").resolve(system));
    }

    /** Every event as {@code system:event}, sorted by system then event. */
    public List<String> allEvents() {
        List<String> all = new ArrayList<>();
        for (String s : systems()) {
            for (String e : events(s)) {
                all.add(s + ":" + e);
            }
        }
        return all;
    }

    /**
     * Parses one event's format.
     *
     * @throws org.tracewire.format.FormatException when the file is malformed
     * @throws TracefsException when it cannot be read
     */
    public EventFormat format(String system, String event) {
        String rel = eventPath(system, event, "format");
        return FormatParser.parse(system, read(rel), root.resolve(rel).toString());
    }

    /**
     * Parses every event's format file. A file that fails to parse is recorded in
     * {@link FormatCatalog#failures()}, not thrown; an unreadable tree still throws.
     *
     * @throws TracefsException when {@code events/} cannot be listed
     */
    public FormatCatalog formats() {
        List<EventFormat> parsed = new ArrayList<>();
        Map<String, FormatException> failures = new HashMap<>();
        for (String system : systems()) {
            for (String event : events(system)) {
                if (!exists(eventPath(system, event, "format"))) {
                    continue;
                }
                try {
                    parsed.add(format(system, event));
                } catch (FormatException e) {
                    failures.put(system + ":" + event, e);
                }
            }
        }
        return new FormatCatalog(parsed, failures);
    }

    /** Parses {@code events/header_page}. */
    public HeaderPage headerPage() {
        return FormatParser.parseHeaderPage(read("events/header_page"), root.resolve("events/header_page").toString());
    }

    /** Parses {@code events/header_event}. */
    public HeaderEvent headerEvent() {
        return FormatParser.parseHeaderEvent(read("events/header_event"), root.resolve("events/header_event").toString());
    }

    /** The kernel's byte order and long size, from {@code header_page} and this tree's byte order. */
    public KernelLayout layout() {
        return KernelLayout.fromHeaderPage(headerPage(), byteOrder);
    }

    /** The event's numeric id (from its {@code id} file, else from its format). */
    public int id(String system, String event) {
        String rel = eventPath(system, event, "id");
        if (exists(rel)) {
            return Integer.parseInt(read(rel).strip());
        }
        return format(system, event).id();
    }

    /** Whether the event is enabled here ({@code enable} reads 1); false on a snapshot. */
    public boolean isEnabled(String system, String event) {
        String rel = eventPath(system, event, "enable");
        return exists(rel) && read(rel).strip().startsWith("1");
    }

    /** The event's current filter text, {@code "none"} when unfiltered or unknown. */
    public String filter(String system, String event) {
        String rel = eventPath(system, event, "filter");
        return exists(rel) ? read(rel).strip() : "none";
    }

    /** The event's triggers, one per line ({@code "# Available triggers:"} header dropped). */
    public List<String> triggers(String system, String event) {
        String rel = eventPath(system, event, "trigger");
        if (!exists(rel)) {
            return List.of();
        }
        return read(rel).lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
    }

    /** {@code available_tracers}, split. */
    public List<String> availableTracers() {
        return exists("available_tracers") ? List.of(read("available_tracers").strip().split("\\s+")) : List.of();
    }

    /** The trace clocks from {@code trace_clock}; the current one is {@link #currentClock()}. */
    public List<String> traceClocks() {
        if (!exists("trace_clock")) {
            return List.of();
        }
        List<String> clocks = new ArrayList<>();
        for (String c : read("trace_clock").strip().split("\\s+")) {
            clocks.add(c.replace("[", "").replace("]", ""));
        }
        return clocks;
    }

    /** The clock in brackets in {@code trace_clock}, e.g. {@code local}. */
    public String currentClock() {
        if (!exists("trace_clock")) {
            return "local";
        }
        for (String c : read("trace_clock").strip().split("\\s+")) {
            if (c.startsWith("[")) {
                return c.substring(1, c.length() - 1);
            }
        }
        return "local";
    }

    /** {@code buffer_size_kb}: per-CPU ring buffer size in KiB (the kernel may append "(expanded: N)"). */
    public int bufferSizeKb() {
        String t = read("buffer_size_kb").strip();
        return Integer.parseInt(t.replaceFirst("\\s.*", ""));
    }

    /** Sub-buffer size in bytes, from {@code header_page}. */
    public int subBufferSize() {
        return headerPage().subBufferSize();
    }

    /** CPUs with a {@code per_cpu/cpuN} directory, sorted; empty on a snapshot. */
    public List<Integer> cpus() {
        Path perCpu = root.resolve("per_cpu");
        if (!Files.isDirectory(perCpu)) {
            return List.of();
        }
        List<Integer> cpus = new ArrayList<>();
        for (String d : listDirs(perCpu)) {
            if (d.matches("cpu\\d+")) {
                cpus.add(Integer.parseInt(d.substring(3)));
            }
        }
        Collections.sort(cpus);
        return cpus;
    }

    /** Path of {@code per_cpu/cpuN/trace_pipe_raw}. */
    public Path tracePipeRaw(int cpu) {
        return root.resolve("per_cpu/cpu" + cpu + "/trace_pipe_raw");
    }

    /** The names of existing instances under {@code instances/}. */
    public List<String> instanceNames() {
        return listDirs(root.resolve("instances"));
    }

    /**
     * Creates instance {@code instances/<name>} ({@code mkdir}), with its own ring buffers and
     * all events disabled.
     *
     * @throws TracefsException when it exists, the name is not a plain name, or on a snapshot
     */
    public TracefsInstance createInstance(String name) {
        checkName(name);
        if (!live) {
            throw new TracefsException("cannot create instance " + name + ": " + label);
        }
        Path dir = root.resolve("instances").resolve(name);
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            throw new TracefsException("cannot create instance " + dir + ": " + e, e);
        }
        return new TracefsInstance(this, dir, name);
    }

    /** Opens an existing instance by name. */
    public TracefsInstance instance(String name) {
        checkName(name);
        Path dir = root.resolve("instances").resolve(name);
        if (!Files.isDirectory(dir)) {
            throw new TracefsException("no instance " + dir);
        }
        return new TracefsInstance(this, dir, name);
    }

    static String eventPath(String system, String event, String file) {
        checkName(system);
        checkName(event);
        return "events/" + system + "/" + event + "/" + file;
    }

    /**
     * Rejects names that are not a single path element (a crafted {@code ../x} or {@code a/b}).
     *
     * @throws IllegalArgumentException for an empty name, {@code .}, {@code ..}, or one with {@code /} or NUL
     */
    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..")
                || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a tracefs name: '" + name + "'");
        }
    }

    private static List<String> listDirs(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new TracefsException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
