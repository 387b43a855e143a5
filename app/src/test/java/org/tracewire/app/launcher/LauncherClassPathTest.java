package org.tracewire.app.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * Each process the launcher starts has its own class path (issue 32, "modules = processes"), read
 * from the running JVM's {@code /proc/PID/cmdline}: a capture, a command that reads files and the
 * backend carry no JavaFX, no DuckDB and no app classes (the backend no dissector generator either); {@code sql} carries DuckDB and still no
 * JavaFX. Runs in the app module's {@code readme} execution, after the jars are packaged.
 */
@Tag("live")
class LauncherClassPathTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** The class path entries of the JVM a launcher invocation became (the launcher execs java). */
    private static List<String> classPath(Process p) throws Exception {
        List<String> args = jvm(p);
        return Arrays.asList(args.get(args.indexOf("-cp") + 1).split(":"));
    }

    /** The command line of the JVM a launcher invocation became. */
    private static List<String> jvm(Process p) throws Exception {
        Path cmdline = Path.of("/proc", Long.toString(p.pid()), "cmdline");
        for (int i = 0; i < 600 && p.isAlive(); i++) {
            List<String> args = Arrays.asList(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"));
            int cp = args.indexOf("-cp");
            if (cp >= 0 && args.get(0).endsWith("java")) {
                return args;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the launcher did not start a JVM");
    }

    private static Process launch(Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ROOT.resolve("tracewire").toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    /** The launcher with a display named (none listens there: the app's JVM is read before it fails). */
    private static Process launchWithDisplay(Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ROOT.resolve("tracewire").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("DISPLAY", ":97");
        return pb.start();
    }

    private static void assertWithout(String what, List<String> cp, String... forbidden) {
        for (String f : forbidden) {
            assertTrue(cp.stream().noneMatch(e -> e.contains(f)), what + " carries " + f + ": " + cp);
        }
    }

    @Test
    void eachProcessHasItsOwnClassPath(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("tracewire.readme.packaged"), "runs after package (readme execution)");
        Prerequisites.requireTracefs();
        Path log = dir.resolve("launch.log");

        Process capture = launch(log, "capture", "-e", "sched:sched_switch", "--duration", "2", "-w",
                dir.resolve("c.pcapng").toString());
        List<String> cp = classPath(capture);
        assertTrue(capture.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, capture.exitValue(), Files.readString(log));
        assertTrue(cp.stream().anyMatch(e -> e.contains("tracewire-cli-")), cp.toString());
        assertWithout("capture", cp, "javafx", "duckdb", "tracewire-app-", "tracewire-store-", "controlsfx");

        // sql, following a file this test holds open for writing: it waits, so its JVM can be read
        Path growing = dir.resolve("g.pcapng");
        Files.copy(dir.resolve("c.pcapng"), growing);
        Process sql;
        try (OutputStream hold = Files.newOutputStream(growing, java.nio.file.StandardOpenOption.APPEND)) {
            sql = launch(log, "sql", "--follow", "--cache-dir", dir.resolve("cache").toString(), growing.toString(),
                    "SELECT count(*) FROM events");
            cp = classPath(sql);
        }
        assertTrue(sql.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, sql.exitValue(), Files.readString(log));
        assertTrue(cp.stream().anyMatch(e -> e.contains("store")), "sql has the store: " + cp);
        assertWithout("sql", cp, "javafx", "tracewire-app-", "controlsfx");

        Process backend = launch(log, "backend");
        try {
            cp = classPath(backend);
        } finally {
            backend.getOutputStream().close(); // the backend ends with its standard input
            if (!backend.waitFor(20, TimeUnit.SECONDS)) {
                backend.destroyForcibly().waitFor();
            }
        }
        assertFalse(cp.isEmpty());
        assertWithout("backend", cp, "javafx", "duckdb", "tracewire-app-", "tracewire-store-", "tracewire-cli-",
                "controlsfx", "tracewire-dissector-gen-");

        // the desktop app: a process of its own, beside the command line (no commands, no capture engine)
        Process app = launchWithDisplay(log, "--view", "start");
        List<String> jvm;
        try {
            jvm = jvm(app);
        } finally {
            app.destroyForcibly().waitFor();
        }
        cp = Arrays.asList(jvm.get(jvm.indexOf("-cp") + 1).split(":"));
        assertTrue(jvm.contains("org.tracewire.app.AppLauncher"), "the app's own main class: " + jvm);
        assertTrue(cp.stream().anyMatch(e -> e.contains("tracewire-app-")) && cp.stream().anyMatch(e -> e.contains("/app/target/lib")),
                "the app's class path: " + cp);
        Path lib = ROOT.resolve("app/target/lib");
        try (var jars = Files.list(lib)) {
            List<String> names = jars.map(j -> j.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("javafx-")) && names.stream().anyMatch(n -> n.startsWith("duckdb")),
                    "the app has JavaFX and the store: " + names);
            assertTrue(names.stream().noneMatch(n -> n.startsWith("tracewire-cli-") || n.startsWith("tracewire-capture-backend-")
                    || n.startsWith("pcap4j")), "the app carries no command line and no capture engine: " + names);
        }
        // without a display the same words are the command line's
        Process noDisplay = launch(log, "--view", "start");
        List<String> cli;
        try {
            cli = jvm(noDisplay);
        } finally {
            noDisplay.waitFor(30, TimeUnit.SECONDS);
        }
        assertTrue(cli.contains("org.tracewire.cli.Main"), cli.toString());
    }
}
