package org.tracewire.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks reach the libraries through their public API only: no benchmark class sits in a
 * package that a class of the main code (any jar or class directory on the benchmarks' class path)
 * also uses, since a shared package is how package-private code would be reached.
 */
class BenchmarkPackagesTest {

    @Test
    void benchmarksShareNoPackageWithMainCode() throws Exception {
        Path own = Path.of(EmitLoopBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<String> benchmarkPackages = packages(own);
        assertTrue(benchmarkPackages.contains("org.tracewire.bench"), "benchmark packages: " + benchmarkPackages);
        Map<String, Set<String>> shared = shared(benchmarkPackages, own);
        assertEquals(Map.of(), shared, "benchmark packages also used by main code (package → class-path entries)");
    }

    /** Meta-test: the check reports a package that main code uses (the capture engine's). */
    @Test
    void checkCatchesASharedPackage() throws URISyntaxException, IOException {
        Path own = Path.of(EmitLoopBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, Set<String>> shared = shared(Set.of("org.tracewire.capture"), own);
        assertFalse(shared.isEmpty(), "org.tracewire.capture is the capture library's package");
        assertTrue(shared.get("org.tracewire.capture").stream().anyMatch(e -> e.contains("tracewire-capture-") || e.contains("/capture/target/")),
                String.valueOf(shared));
    }

    /** The given packages that a class-path entry other than {@code own} holds classes in. */
    private static Map<String, Set<String>> shared(Set<String> wanted, Path own) throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (entry.isEmpty() || p.toAbsolutePath().startsWith(own.toAbsolutePath().getParent())) {
                continue; // this module's own classes and test classes
            }
            for (String pkg : packages(p)) {
                if (wanted.contains(pkg)) {
                    out.computeIfAbsent(pkg, k -> new TreeSet<>()).add(entry);
                }
            }
        }
        return out;
    }

    /** The packages holding a class in a jar or a class directory (none when it does not exist). */
    private static Set<String> packages(Path entry) throws IOException {
        Set<String> out = new TreeSet<>();
        if (Files.isDirectory(entry)) {
            try (Stream<Path> s = Files.walk(entry)) {
                s.filter(f -> f.toString().endsWith(".class")).forEach(f -> {
                    Path rel = entry.relativize(f).getParent();
                    if (rel != null) {
                        out.add(rel.toString().replace(File.separatorChar, '.'));
                    }
                });
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        } else if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
            try (JarFile jar = new JarFile(entry.toFile())) {
                jar.stream().map(e -> e.getName())
                        .filter(n -> n.endsWith(".class") && n.contains("/") && !n.startsWith("META-INF/"))
                        .forEach(n -> out.add(n.substring(0, n.lastIndexOf('/')).replace('/', '.')));
            }
        }
        return out;
    }
}
