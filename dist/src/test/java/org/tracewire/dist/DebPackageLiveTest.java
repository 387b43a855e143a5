package org.tracewire.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * The Debian package as a user gets it: {@code apt-get install ./tracewire_*.deb} (dependencies
 * resolved by apt, no recommended packages), then the installed {@code tracewire} works as root
 * ({@code formats --check}, a 1-s capture into a pcapng that tshark decodes with the installed
 * Lua plugin and without Lua errors, also when {@code -X lua_script:} names a generated plugin),
 * {@code tshark -D} lists the extcap interfaces and a capture through {@code tshark -i tracewire}
 * records events, the backend answers on its own class path, {@code man} shows the pages, bash
 * completes {@code tracewire cap<TAB>} to {@code capture}; then {@code apt-get remove} leaves none of
 * the package's files, and {@code dpkg --purge} leaves no trace in dpkg either.
 *
 * <p>Leaves the machine as found even when an assertion fails: {@code dpkg --purge} runs in a finally, and
 * any file the package would overwrite (e.g. an extcap entry that {@code tracewire extcap
 * --install} left) is saved before and put back after. Refuses to run when a tracewire package
 * is already installed (it would remove it). Touches no file of the source tree.
 */
@Tag("live")
class DebPackageLiveTest {
    private static final String PACKAGE = "tracewire";
    private static final Path TRACEWIRE = Path.of("/usr/bin/tracewire");
    private static final Path SHARE = Path.of("/usr/share/tracewire");

    @Test
    void installsWorksAndRemovesWithoutATrace(@TempDir Path tmp) throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
        Prerequisites.requireTool("apt-get");
        Prerequisites.requireTool("dpkg");
        Prerequisites.requireTool("dpkg-deb");
        Prerequisites.requireTool("dpkg-query");
        Prerequisites.requireTool("tshark");
        Prerequisites.requireTool("man");
        Prerequisites.requireTool("bash");
        Path deb = deb();
        assertFalse(installed(), "a tracewire package is installed already: this test would remove it; "
                + "remove it first (apt-get purge tracewire)");
        List<Path> files = packageFiles(deb);
        assertTrue(files.contains(TRACEWIRE), files.toString());
        Map<Path, Saved> saved = save(files);
        List<Path> installedFiles = List.of();
        try {
            Run apt = run(tmp, 600, "apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y",
                    "--no-install-recommends", deb.toString());
            assertEquals(0, apt.code, apt.out);
            assertTrue(installed(), apt.out);
            installedFiles = dpkgFiles();
            for (Path f : files) {
                assertTrue(installedFiles.contains(f), "dpkg -L lacks " + f);
                assertTrue(Files.exists(f, LinkOption.NOFOLLOW_LINKS), f + " not installed");
            }
            works(tmp);
            // `apt remove` alone must take every file (the package has no configuration files)
            Run remove = run(tmp, 600, "apt-get", "-o", "DPkg::Lock::Timeout=300", "remove", "-y", PACKAGE);
            assertEquals(0, remove.code, remove.out);
            assertGone(installedFiles, saved);
        } finally {
            // dpkg, not apt: after a remove apt no longer knows a package that came from a file
            Run purge = run(tmp, 600, "dpkg", "--purge", PACKAGE);
            restore(saved);
            assertEquals(0, purge.code, purge.out);
        }
        assertFalse(installed(), "still installed after dpkg --purge");
        assertGone(installedFiles, saved);
    }

    /** None of the package's files is left (those it replaced are back as they were), nor its own folder. */
    private static void assertGone(List<Path> installedFiles, Map<Path, Saved> saved) {
        assertFalse(installedFiles.isEmpty());
        for (Path f : installedFiles) {
            if (saved.containsKey(f) || Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                continue; // put back as it was / a folder other packages share
            }
            assertFalse(Files.exists(f, LinkOption.NOFOLLOW_LINKS), f + " left behind");
        }
        assertFalse(Files.exists(Path.of("/usr/share/tracewire")), "/usr/share/tracewire left behind");
    }

    /** What the installed package must do, run from a folder of its own with the installed files only. */
    private static void works(Path tmp) throws Exception {
        Run formats = run(tmp, 300, TRACEWIRE.toString(), "formats", "--check");
        assertEquals(0, formats.code, formats.out);
        assertTrue(formats.out.matches("(?s)formats: \\d+ parsed.*"), formats.out);

        // with a display the app's options reach the desktop app's own main class (its parser answers)
        Run app = run(tmp, 120, "env", "DISPLAY=:97", TRACEWIRE.toString(), "--view", "nope");
        assertEquals(2, app.code, app.out);
        assertTrue(app.out.contains("unknown view 'nope'"), app.out);

        eachProcessHasItsOwnClassPathList();

        // the backend on its own class path (backend.classpath: no GUI library) answers hello
        Path hello = tmp.resolve("hello.json");
        Files.writeString(hello, "{\"type\":\"hello\",\"id\":1}\n{\"type\":\"quit\",\"id\":2}\n");
        Run backend = run(tmp, 120, "bash", "-c", TRACEWIRE + " backend < " + hello);
        assertEquals(0, backend.code, backend.out);
        assertTrue(backend.out.contains("{\"type\":\"hello\",\"id\":1,"), backend.out);

        Path pcap = tmp.resolve("x.pcapng");
        Run capture = run(tmp, 300, TRACEWIRE.toString(), "capture", "-e", "sched:sched_switch", "--duration", "1",
                "-w", pcap.toString());
        assertEquals(0, capture.code, capture.out);
        assertTrue(Files.size(pcap) > 0, capture.out);

        // the capture store (DuckDB, on sql's class path only) counts what the capture wrote
        Run sql = run(tmp, 300, TRACEWIRE.toString(), "sql", "--csv", pcap.toString(),
                "SELECT count(*) FROM sched_switch");
        assertEquals(0, sql.code, sql.out);
        assertTrue(sql.out.lines().skip(1).anyMatch(l -> l.strip().matches("[1-9]\\d*")), sql.out);

        // decoded by the installed plugin (the runtime, from the capture's context), no Lua error
        Run decoded = run(tmp, 300, "tshark", "-n", "-r", pcap.toString(), "-Y", "tracewire && !_ws.lua.error",
                "-T", "fields", "-e", "_ws.col.Info");
        assertEquals(0, decoded.code, decoded.out);
        assertTrue(decoded.out.lines().anyMatch(l -> l.contains("prev_comm=")), "no sched_switch text: " + decoded.out);
        assertEquals("", errors(tmp, pcap, List.of()), "Lua errors with the installed plugin");
        // a generated plugin named with -X lua_script: loads, the installed one steps aside
        Path lua = tmp.resolve("sched.lua");
        Run gen = run(tmp, 300, TRACEWIRE.toString(), "dissector", "-e", "sched:*", "-w", lua.toString());
        assertEquals(0, gen.code, gen.out);
        assertEquals("", errors(tmp, pcap, List.of("-X", "lua_script:" + lua)), "Lua errors with -X lua_script");
        Run typed = run(tmp, 300, "tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap.toString(),
                "-Y", "tracewire.sched.sched_switch.prev_pid", "-T", "fields", "-e", "tracewire.sched.sched_switch.prev_pid");
        assertEquals(0, typed.code, typed.out);
        assertFalse(typed.out.isBlank(), "the generated plugin's typed fields are missing: " + typed.out);

        Run ifaces = run(tmp, 120, "tshark", "-D");
        assertTrue(ifaces.out.lines().anyMatch(l -> l.matches("\\d+\\. tracewire \\(.*")), ifaces.out);
        assertTrue(ifaces.out.lines().anyMatch(l -> l.matches("\\d+\\. tracewire-ssh \\(.*")), ifaces.out);
        Path viaExtcap = tmp.resolve("extcap.pcapng");
        Run extcap = run(tmp, 300, "tshark", "-i", "tracewire", "-o", "extcap.tracewire.events:sched:sched_switch",
                "-o", "extcap.tracewire.installdissector:false", "-a", "duration:3", "-w", viaExtcap.toString());
        assertEquals(0, extcap.code, extcap.out);
        Run count = run(tmp, 300, "tshark", "-n", "-r", viaExtcap.toString(), "-Y", "tracewire.kind == 0");
        assertTrue(count.out.lines().count() > 0, "no event through the installed extcap: " + extcap.out + count.out);

        Run man = run(tmp, 120, "man", "-P", "cat", "tracewire");
        assertEquals(0, man.code, man.out);
        assertTrue(man.out.contains("tracewire-capture"), man.out);
        Run manCapture = run(tmp, 120, "man", "-P", "cat", "tracewire-capture");
        assertEquals(0, manCapture.code, manCapture.out);
        assertTrue(manCapture.out.contains("EXAMPLES") && manCapture.out.contains("tracewire capture -e"), manCapture.out);

        Run complete = run(tmp, 60, "bash", "-c", "source /usr/share/bash-completion/completions/tracewire"
                + " && COMP_LINE='tracewire cap' && COMP_POINT=${#COMP_LINE} && COMP_WORDS=(tracewire cap)"
                // compopt complains outside of a real completion (stderr): only the replies count
                + " && COMP_CWORD=1 && _complete_tracewire tracewire cap tracewire 2>/dev/null"
                + " && printf '%s\\n' \"${COMPREPLY[@]}\"");
        assertEquals(0, complete.code, complete.out);
        assertEquals(List.of("capture"), complete.out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
    }

    /**
     * Each process's class path list names installed jars only, and none of the libraries it must
     * not load: the backend and the commands no JavaFX, no DuckDB (the launcher adds the store's
     * list for sql and export) and no dissector generator (added for extcap and dissector), the
     * backend no command line either, the commands no backend; the app JavaFX but no command line,
     * no backend, no capture engine and no pcap4j; the store's list the store
     * and DuckDB, from {@code store/}.
     */
    private static void eachProcessHasItsOwnClassPathList() throws IOException {
        Map<String, List<String>> forbidden = Map.of(
                "backend.classpath", List.of("javafx", "controlsfx", "duckdb", "tracewire-store", "tracewire-app",
                        "tracewire-cli", "tracewire-dissector-gen", "picocli"),
                "cli.classpath", List.of("javafx", "controlsfx", "duckdb", "tracewire-store", "tracewire-app",
                        "tracewire-dissector-gen", "tracewire-backend"),
                "app.classpath", List.of("tracewire-cli", "tracewire-backend", "tracewire-capture", "pcap4j", "duckdb",
                        "tracewire-store"));
        for (Map.Entry<String, List<String>> e : forbidden.entrySet()) {
            List<String> entries = classPathList(e.getKey());
            assertTrue(entries.size() > 3, e.getKey() + ": " + entries);
            for (String entry : entries) {
                for (String f : e.getValue()) {
                    assertFalse(Path.of(entry).getFileName().toString().startsWith(f), e.getKey() + " carries " + entry);
                }
            }
        }
        assertTrue(classPathList("app.classpath").stream().anyMatch(j -> j.endsWith("/javafx-controls-linux.jar")),
                "the app's list has JavaFX");
        assertEquals(List.of(SHARE.resolve("store/tracewire-store.jar").toString(), SHARE.resolve("store/duckdb_jdbc.jar").toString()),
                classPathList("store.classpath"));
    }

    /** The entries of an installed class path list, each checked to be an installed jar. */
    private static List<String> classPathList(String name) throws IOException {
        List<String> entries = List.of(Files.readString(SHARE.resolve(name)).strip().split(":"));
        for (String entry : entries) {
            assertTrue(Files.isRegularFile(Path.of(entry)), name + " names " + entry + ", which is not installed");
        }
        return entries;
    }

    /** The {@code _ws.lua.error} texts of a decode, empty when none. */
    private static String errors(Path tmp, Path pcap, List<String> extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n"));
        cmd.addAll(extra);
        cmd.addAll(List.of("-r", pcap.toString(), "-Y", "_ws.lua.error", "-T", "fields", "-e", "_ws.lua.error"));
        Run r = run(tmp, 300, cmd.toArray(new String[0]));
        assertEquals(0, r.code, r.out);
        // tshark's stderr (merged) says "Lua: Error during loading" when a plugin fails to load
        return r.out.lines().filter(l -> !l.startsWith("Running as user")).reduce("", (a, b) -> a + b + "\n");
    }

    /** The newest tracewire_*_amd64.deb the build wrote. */
    private static Path deb() throws IOException {
        Path dir = Path.of(System.getProperty("tracewire.deb.dir", "target"));
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("tracewire_.*_amd64\\.deb"))
                    .max(Comparator.comparing(p -> p.toFile().lastModified()))
                    .orElseThrow(() -> new AssertionError("no tracewire_*_amd64.deb in " + dir + ": run mvn -B verify"))
                    .toAbsolutePath();
        }
    }

    /** The files (not folders) in the package, from {@code dpkg-deb -c}. */
    private static List<Path> packageFiles(Path deb) throws Exception {
        Run r = run(deb.getParent(), 60, "dpkg-deb", "-c", deb.toString());
        assertEquals(0, r.code, r.out);
        List<Path> files = new ArrayList<>();
        for (String line : r.out.lines().toList()) {
            if (line.startsWith("d")) {
                continue;
            }
            int at = line.indexOf(" ./");
            String name = line.substring(at + 2);
            int arrow = name.indexOf(" -> ");
            files.add(Path.of(arrow >= 0 ? name.substring(0, arrow) : name));
        }
        assertTrue(files.size() > 10, r.out);
        return files;
    }

    private static boolean installed() throws Exception {
        Run r = run(Path.of("/"), 60, "dpkg-query", "-W", "-f", "${db:Status-Status}", PACKAGE);
        return r.code == 0 && r.out.strip().equals("installed");
    }

    /** {@code dpkg -L}: every path the installed package owns (files and folders). */
    private static List<Path> dpkgFiles() throws Exception {
        Run r = run(Path.of("/"), 60, "dpkg", "-L", PACKAGE);
        assertEquals(0, r.code, r.out);
        return r.out.lines().filter(l -> l.startsWith("/")).map(Path::of).toList();
    }

    /** A file the package would replace, as it was. */
    private record Saved(byte[] bytes, String perms, Path link) {
    }

    private static Map<Path, Saved> save(List<Path> files) throws IOException {
        Map<Path, Saved> saved = new LinkedHashMap<>();
        for (Path f : files) {
            if (Files.isSymbolicLink(f)) {
                saved.put(f, new Saved(null, null, Files.readSymbolicLink(f)));
            } else if (Files.isRegularFile(f)) {
                saved.put(f, new Saved(Files.readAllBytes(f),
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(f)), null));
            }
        }
        return saved;
    }

    private static void restore(Map<Path, Saved> saved) throws IOException {
        for (Map.Entry<Path, Saved> e : saved.entrySet()) {
            Path f = e.getKey();
            Files.createDirectories(f.getParent());
            Files.deleteIfExists(f);
            if (e.getValue().link() != null) {
                Files.createSymbolicLink(f, e.getValue().link());
            } else {
                Files.write(f, e.getValue().bytes());
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(e.getValue().perms()));
            }
        }
    }

    private record Run(int code, String out) {
    }

    /** Runs a command in {@code dir} (stderr merged into the output), killed after {@code timeoutS}. */
    private static Run run(Path dir, long timeoutS, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Run(-1, String.join(" ", cmd) + ": timed out\n" + new String(out, StandardCharsets.UTF_8));
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
