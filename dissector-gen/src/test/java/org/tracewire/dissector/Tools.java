package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.KernelLayout;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Test helpers: running tools, the snapshot catalog, the generated all-events plugin. */
final class Tools {
    private Tools() {
    }

    /** Output of a finished process. */
    record Run(int exit, String out, String err) {
    }

    static Run run(List<String> cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        // a clean Wireshark profile: no personal plugins or preferences of this machine's user
        // (another tracewire installed there would clash with the plugin under test)
        Path home = Path.of("target", "tw-home").toAbsolutePath();
        Files.createDirectories(home);
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("XDG_CONFIG_HOME");
        Path out = Files.createTempFile("tw-out", ".txt");
        Path err = Files.createTempFile("tw-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timeout: " + cmd);
        }
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return r;
    }

    static Run run(String... cmd) throws IOException, InterruptedException {
        return run(List.of(cmd));
    }

    private static Tracefs snapshotFs;
    private static FormatCatalog catalog;
    private static DissectorGenerator.Result all;

    static synchronized Tracefs snapshot() {
        if (snapshotFs == null) {
            snapshotFs = Tracefs.open(Prerequisites.snapshot());
        }
        return snapshotFs;
    }

    static synchronized FormatCatalog catalog() {
        if (catalog == null) {
            catalog = snapshot().formats();
        }
        return catalog;
    }

    private static KernelLayout layout;

    /** The snapshot's layout, parsed once (Tracefs.layout reads and parses header_page at each call). */
    static synchronized KernelLayout layout() {
        if (layout == null) {
            layout = snapshot().layout();
        }
        return layout;
    }

    static synchronized DissectorGenerator.Result all() {
        if (all == null) {
            all = new DissectorGenerator(catalog(), layout(), "snapshots/linux-6.18").generate(catalog().formats());
        }
        return all;
    }

    /** The runtime alone (no event tables, {@link DissectorGenerator#runtimeOnly}) written to target/, absolute. */
    static synchronized Path runtimeOnly() throws IOException {
        Path p = Path.of("target", "tracewire-runtime.lua").toAbsolutePath();
        String lua = DissectorGenerator.runtimeOnly();
        if (!Files.exists(p) || !Files.readString(p).equals(lua)) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, lua);
        }
        return p;
    }

    /** Writes the all-events plugin to target/ and returns its absolute path. */
    static synchronized Path allPlugin() throws IOException {
        Path p = Path.of("target", "tracewire-all.lua").toAbsolutePath();
        if (!Files.exists(p) || !Files.readString(p).equals(all().lua())) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, all().lua());
        }
        return p;
    }

    /** tshark reading a file with a plugin; fails the test when Lua reported an error on load. */
    static Run tshark(Path plugin, Path capture, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-X", "lua_script:" + plugin.toAbsolutePath(),
                "-r", capture.toAbsolutePath().toString()));
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    /** The numbers of the frames of {@code capture} that display filter {@code filter} matches with {@code plugin}. */
    static TreeSet<Integer> frameNumbers(Path plugin, Path capture, String filter) throws Exception {
        Run r = tshark(plugin, capture, "-Y", filter, "-T", "fields", "-e", "frame.number");
        return numbers(r);
    }

    /**
     * The numbers of the frames that display filter {@code filter} selects as Wireshark filters its
     * packet list: tshark's summary lines with the number column alone, so the tree is not visible
     * and the plugin adds only the items the filter references (its mode 1). {@link #frameNumbers}
     * prints fields, which makes the whole tree visible (mode 2) on every frame: about 4 times the
     * CPU on the 36,000-frame fixture (2.0 s against 7.8 s).
     */
    static TreeSet<Integer> listed(Path plugin, Path capture, String filter) throws Exception {
        Run r = tshark(plugin, capture, "-Y", filter, "-o", "gui.column.format:\"No.\",\"%m\"");
        return numbers(r);
    }

    /**
     * Fields of every frame as custom columns of tshark's summary lines ({@code -T tabs}): the same
     * lines as {@code -T fields -e ...} (tab-separated, one a frame), but the tree is not visible, so
     * the plugin adds only the referenced items (its mode 1, as in Wireshark's packet list with
     * these columns): 12 s of CPU instead of 28 s on 137,000 frames.
     */
    static Run columns(Path plugin, Path capture, String... fields) throws IOException, InterruptedException {
        StringBuilder format = new StringBuilder("gui.column.format:");
        for (int i = 0; i < fields.length; i++) {
            format.append(i == 0 ? "" : ",").append("\"c").append(i).append("\",\"%Cus:").append(fields[i]).append('"');
        }
        Run r = tshark(plugin, capture, "-T", "tabs", "-o", format.toString());
        return new Run(r.exit(), r.out().replaceAll("(?m)^ +", ""), r.err());
    }

    /** The frame numbers a tshark run printed, one a line, after it exited 0. */
    private static TreeSet<Integer> numbers(Run r) {
        assertEquals(0, r.exit(), r.err());
        TreeSet<Integer> got = new TreeSet<>();
        for (String l : r.out().split("\n")) {
            if (!l.isBlank()) {
                got.add(Integer.parseInt(l.trim()));
            }
        }
        return got;
    }

    static Path tempDir() throws IOException {
        Path d = Path.of("target", "tw-test").toAbsolutePath();
        Files.createDirectories(d);
        return d;
    }
}
