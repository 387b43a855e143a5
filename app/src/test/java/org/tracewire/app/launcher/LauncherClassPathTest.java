package org.tracewire.app.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * Each process the launcher starts has its own class path (issue 32, "modules = processes"), read
 * from the running JVM's {@code /proc/PID/cmdline}, a {@code DIR/*} entry read as the jars in DIR
 * (as the JVM does): a capture, the extcap and the backend carry no JavaFX, no DuckDB and no app
 * classes; the capture and the backend no dissector generator either, the extcap (which generates
 * its dissector) has it; the backend no command line, the commands no backend; {@code sql} carries
 * DuckDB and still no JavaFX. The extcap is started as Wireshark starts it: through the entry
 * {@code extcap --install} writes, with Wireshark's calls. Runs in the app module's {@code readme}
 * execution, after the jars are packaged.
 */
@Tag("live")
class LauncherClassPathTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /**
     * The class path entries of the JVM a launcher invocation became (the launcher execs java), an
     * entry {@code DIR/*} replaced by the jars in DIR.
     */
    private static List<String> classPath(Process p) throws Exception {
        return classPath(jvm(p));
    }

    private static List<String> classPath(List<String> jvm) throws IOException {
        List<String> out = new ArrayList<>();
        for (String e : jvm.get(jvm.indexOf("-cp") + 1).split(":")) {
            if (e.endsWith("/*")) {
                try (var jars = Files.list(Path.of(e.substring(0, e.length() - 2)))) {
                    jars.map(Path::toString).filter(j -> j.endsWith(".jar") || j.endsWith(".JAR")).sorted().forEach(out::add);
                }
            } else {
                out.add(e);
            }
        }
        return out;
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
        assertTrue(cp.stream().anyMatch(e -> e.contains("tracewire-cli-")) && cp.stream().anyMatch(e -> e.contains("tracewire-capture-")),
                cp.toString());
        assertWithout("capture", cp, "javafx", "duckdb", "tracewire-app-", "tracewire-store-", "controlsfx",
                "tracewire-dissector-gen-", "tracewire-backend-");

        extcapAsWiresharkStartsIt(dir, log);

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
        assertTrue(cp.stream().anyMatch(e -> e.contains("tracewire-backend-")) && cp.stream().anyMatch(e -> e.contains("tracewire-capture-")),
                "the backend's own jar and the capture library: " + cp);
        assertWithout("backend", cp, "javafx", "duckdb", "tracewire-app-", "tracewire-store-", "tracewire-cli-",
                "controlsfx", "tracewire-dissector-gen-", "picocli");

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
            assertTrue(names.stream().noneMatch(n -> n.startsWith("tracewire-cli-") || n.startsWith("tracewire-backend-")
                    || n.startsWith("tracewire-capture-") || n.startsWith("pcap4j")),
                    "the app carries no command line, no backend and no capture engine: " + names);
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

    /**
     * The extcap as Wireshark runs it: the entry {@code extcap --install} writes into an extcap
     * folder, asked for its interfaces, link types and options (the entry answers those itself),
     * then {@code --capture} into a FIFO, which starts the JVM whose class path is read; a reader
     * drains the FIFO, and SIGTERM (how Wireshark stops an extcap) ends the capture.
     */
    private static void extcapAsWiresharkStartsIt(Path dir, Path log) throws Exception {
        Prerequisites.requireTool("mkfifo");
        Path folder = dir.resolve("extcap");
        Process install = launch(log, "extcap", "--install", "--no-dissector", "--extcap-dir", folder.toString());
        assertTrue(install.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, install.exitValue(), Files.readString(log));
        Path entry = folder.resolve("tracewire");
        // Wireshark's calls before a capture, each with a line of its answer
        Map<List<String>, String> calls = Map.of(List.of("--extcap-interfaces"), "interface {value=tracewire}",
                List.of("--extcap-interface", "tracewire", "--extcap-dlts"), "dlt {number=162}",
                List.of("--extcap-interface", "tracewire", "--extcap-config"), "{call=--events}");
        for (Map.Entry<List<String>, String> call : calls.entrySet()) {
            List<String> cmd = new ArrayList<>(List.of(entry.toString()));
            cmd.addAll(call.getKey());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String answer = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), call.getKey() + ": " + answer);
            assertTrue(answer.contains(call.getValue()), call.getKey() + ": " + answer);
        }
        Path fifo = dir.resolve("extcap.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        Process extcap = new ProcessBuilder(entry.toString(), "--capture", "--extcap-interface", "tracewire", "--fifo",
                fifo.toString(), "--events", "sched:sched_switch", "--install-dissector", "false")
                .redirectErrorStream(true).redirectOutput(dir.resolve("extcap.log").toFile()).start();
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try (var in = Files.newInputStream(fifo)) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        List<String> cp;
        try {
            List<String> jvm = jvm(extcap);
            assertTrue(jvm.contains("org.tracewire.cli.Main") && jvm.contains("extcap"), jvm.toString());
            cp = classPath(jvm);
            Thread.sleep(1000);
        } finally {
            extcap.destroy(); // SIGTERM, as Wireshark stops a capture
            if (!extcap.waitFor(60, TimeUnit.SECONDS)) {
                extcap.destroyForcibly().waitFor();
            }
        }
        String extcapLog = Files.readString(dir.resolve("extcap.log"));
        byte[] stream = read.get(60, TimeUnit.SECONDS);
        assertTrue(stream.length >= 4 && stream[0] == 0x0a && stream[1] == 0x0d && stream[2] == 0x0d && stream[3] == 0x0a,
                "a pcapng stream in the FIFO (" + stream.length + " bytes): " + extcapLog);
        assertTrue(cp.stream().anyMatch(e -> e.contains("tracewire-cli-")) && cp.stream().anyMatch(e -> e.contains("tracewire-dissector-gen-")),
                "the extcap has the commands and the dissector generator (it generates its dissector): " + cp);
        assertWithout("extcap", cp, "javafx", "duckdb", "tracewire-app-", "tracewire-store-", "controlsfx", "tracewire-backend-");
    }
}
