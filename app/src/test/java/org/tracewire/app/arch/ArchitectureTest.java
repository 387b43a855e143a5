package org.tracewire.app.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Architecture rules, checked on the sources: JavaFX only in app/; view models never reference
 * views (classes named {@code *View}); view models hold no JavaFX nodes (no javafx.scene imports).
 */
class ArchitectureTest {
    private static Path repo() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tracewire"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "repository root not found above " + Path.of("").toAbsolutePath());
        return dir;
    }

    private static List<Path> javaFiles(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    @Test
    void javafxIsImportedOnlyInApp() throws IOException {
        Path repo = repo();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> modules = Files.list(repo)) {
            for (Path m : modules.filter(p -> Files.isRegularFile(p.resolve("pom.xml"))).toList()) {
                if (m.getFileName().toString().equals("app")) {
                    continue;
                }
                for (Path f : javaFiles(m.resolve("src"))) {
                    if (Files.readString(f).matches("(?s).*\\bimport\\s+(static\\s+)?javafx\\..*")) {
                        offenders.add(repo.relativize(f).toString());
                    }
                }
            }
        }
        assertEquals(List.of(), offenders, "javafx imported outside app/");
        // Inside app/, only org.tracewire.app uses JavaFX (the CLI does not).
        for (Path f : javaFiles(repo.resolve("app/src/main/java/org/tracewire/cli"))) {
            String s = Files.readString(f);
            assertTrue(!s.contains("import javafx."), f + " imports javafx");
        }
    }

    @Test
    void viewModelsDoNotReferenceViewsOrNodes() throws IOException {
        Path src = repo().resolve("app/src/main/java");
        List<Path> files = javaFiles(src);
        Set<String> views = files.stream().map(p -> p.getFileName().toString().replace(".java", ""))
                .filter(n -> n.endsWith("View")).collect(Collectors.toSet());
        assertTrue(views.contains("BrowserView") && views.contains("CaptureView"), views.toString());
        List<Path> viewModels = files.stream().filter(p -> p.getFileName().toString().endsWith("ViewModel.java")).toList();
        assertTrue(viewModels.size() >= 5, viewModels.toString());
        Pattern ident = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");
        List<String> offenders = new ArrayList<>();
        for (Path f : viewModels) {
            String code = stripComments(Files.readString(f));
            Matcher m = ident.matcher(code);
            while (m.find()) {
                if (views.contains(m.group())) {
                    offenders.add(f.getFileName() + " references " + m.group());
                }
            }
            if (code.contains("import javafx.scene") || code.contains("javafx.scene.")) {
                offenders.add(f.getFileName() + " uses javafx.scene (nodes)");
            }
        }
        assertEquals(List.of(), offenders);
    }

    private static String stripComments(String s) {
        return s.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
    }
}
