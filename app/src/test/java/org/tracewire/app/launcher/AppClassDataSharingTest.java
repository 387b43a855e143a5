package org.tracewire.app.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The desktop app's class data sharing archive ({@code app_cds_opts} in scripts/jvm-opts.sh,
 * docs/decisions/0020): the first start archives the classes at exit (into a new file that becomes
 * the archive once a JVM has mapped it: a cut one is removed), the next maps them from the archive (the JVM's own class-load log says where each class came from), silently; an archive
 * older than a jar of the class path is made again. Runs on the packaged jars (the app module's
 * {@code readme} execution). No archive from a directory another user can change.
 */
class AppClassDataSharingTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** What {@code app_cds_opts CLASS_PATH} prints with the cache in {@code cache}. */
    private static String opts(Path cache, String classPath) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "source scripts/jvm-opts.sh && app_cds_opts \"$1\"", "-", classPath)
                .directory(ROOT.toFile()).redirectErrorStream(true);
        pb.environment().put("XDG_CACHE_HOME", cache.toString());
        return run(pb).trim();
    }

    /** The app's {@code --help} in a JVM with these options (it exits at once, as after a session). */
    private static String appHelp(String opts, String classPath, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("java"));
        cmd.addAll(Arrays.asList(opts.split(" ")));
        cmd.addAll(List.of(more));
        cmd.addAll(List.of("-cp", classPath, "org.tracewire.app.AppLauncher", "--help"));
        return run(new ProcessBuilder(cmd).redirectErrorStream(true));
    }

    private static String run(ProcessBuilder pb) throws IOException, InterruptedException {
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", pb.command()) + ": " + out);
        return out;
    }

    @Test
    void theSecondStartMapsTheAppsClassesFromTheArchive(@TempDir Path cache) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("tracewire.readme.packaged"), "runs after package (readme execution)");
        Path jar;
        try (var jars = Files.list(ROOT.resolve("app/target"))) {
            jar = jars.filter(j -> j.getFileName().toString().matches("tracewire-app-.*\\.jar")
                    && !j.getFileName().toString().contains("tests")).findFirst().orElseThrow();
        }
        String classPath = jar + ":" + ROOT.resolve("app/target/lib") + "/*";

        String first = opts(cache, classPath);
        assertTrue(first.matches("-XX:ArchiveClassesAtExit=" + cache + "/tracewire/cds/app-\\d+\\.jsa\\.new -Xlog:cds\\*=off"), first);
        Path written = Path.of(first.substring(first.indexOf('=') + 1, first.indexOf(' ')));
        Path jsa = written.resolveSibling(written.getFileName().toString().replace(".jsa.new", ".jsa"));
        String help = appHelp(first, classPath);
        assertTrue(help.contains("--open"), help);
        assertFalse(help.contains("cds"), "the JVM says nothing about the archive: " + help);
        byte[] whole = Files.readAllBytes(written);
        assertTrue(whole.length > 1 << 20, "archive " + written);

        // an archive cut short (a JVM killed while writing it) crashes a JVM that maps it: never used
        Files.write(written, Arrays.copyOf(whole, whole.length / 3));
        assertEquals(first, opts(cache, classPath));
        assertFalse(Files.exists(written) || Files.exists(jsa), "the cut archive is removed");

        // a whole one becomes the archive once a JVM has mapped it with the class path
        Files.write(written, whole);
        String second = opts(cache, classPath);
        assertEquals("-XX:SharedArchiveFile=" + jsa + " -Xlog:cds*=off", second);
        assertFalse(Files.exists(written));
        String loaded = appHelp(second, classPath, "-Xlog:class+load=info");
        assertTrue(loaded.contains("org.tracewire.app.AppLauncher source: shared objects file (top)"),
                "the app's main class from the archive: " + loaded.lines().filter(l -> l.contains("AppLauncher")).toList());

        // a jar newer than the archive (a rebuild): made again at the next exit
        Files.setLastModifiedTime(jsa, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertEquals(first, opts(cache, classPath));
        assertFalse(Files.exists(jsa), "the stale archive is removed");
    }

    /** An archive is code the JVM maps: none from a cache another user could change. */
    @Test
    void noArchiveFromADirectoryOthersCanWrite(@TempDir Path dir) throws Exception {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals("", opts(shared, "a.jar:lib/*"));
        Path own = Files.createDirectory(dir.resolve("own"));
        assertTrue(opts(own, "a.jar:lib/*").startsWith("-XX:ArchiveClassesAtExit=" + own.toRealPath()), "a private cache");
    }
}
