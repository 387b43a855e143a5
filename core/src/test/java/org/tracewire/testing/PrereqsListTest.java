package org.tracewire.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fresh-machine rule (issue 31): every executable a test runs by name is provided by a
 * package of {@code scripts/prereqs.list}, which {@code scripts/prereqs.sh} installs from.
 */
class PrereqsListTest {
    /** {@code requireTool(NAME)} and {@code new ProcessBuilder(NAME, ...)} with a literal NAME: how tests run a program. */
    static final Pattern NAMED_TOOL = Pattern.compile("(?:requireTool|new ProcessBuilder)\\(\\s*\"([^\"]+)\"");

    /** Each tool named in the Java sources under {@code root}'s modules' {@code src/test}, with one place that names it. */
    static Map<String, String> toolsNamedByTests(Path root) throws IOException {
        Map<String, String> tools = new TreeMap<>();
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/test"))).toList()) {
                try (Stream<Path> files = Files.walk(module.resolve("src/test"))) {
                    files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
                }
            }
        }
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = NAMED_TOOL.matcher(lines.get(i));
                while (m.find()) {
                    tools.putIfAbsent(m.group(1), root.relativize(source) + ":" + (i + 1));
                }
            }
        }
        return tools;
    }

    private static Path repoRoot() {
        return PrereqsList.find().getParent().getParent();
    }

    @Test
    void everyToolATestNamesIsInThePrerequisites() throws IOException {
        PrereqsList list = PrereqsList.load(PrereqsList.find());
        Map<String, String> named = toolsNamedByTests(repoRoot());
        assertTrue(named.containsKey("tshark") && named.containsKey("stress-ng"),
                "the scan finds the tools the live tests are known to run: " + named.keySet());
        List<String> missing = new ArrayList<>();
        named.forEach((tool, where) -> {
            if (!list.covers(tool)) {
                missing.add(tool + " (" + where + ")");
            }
        });
        assertEquals(List.of(), missing, "tests run tools that scripts/prereqs.list does not list");
    }

    @Test
    void aFakeToolInATestIsCaught(@TempDir Path tmp) throws IOException {
        Path test = tmp.resolve("mod/src/test/java/FakeTest.java");
        Files.createDirectories(test.getParent());
        Files.writeString(test, "class FakeTest { void t() { Prerequisites.requireTool(\"x\"); "
                + "new ProcessBuilder(\"tshark\", \"-v\"); } }\n");
        Map<String, String> named = toolsNamedByTests(tmp);
        assertEquals(new TreeSet<>(List.of("tshark", "x")), named.keySet());
        PrereqsList list = PrereqsList.load(PrereqsList.find());
        assertFalse(list.covers("x"), "x is no Debian tool of ours");
        assertTrue(list.covers("tshark"));
    }

    @Test
    void requireToolFailsForAnUnlistedTool() {
        // an unlisted name fails on any machine, never skips (not a literal: the scan above would flag it)
        String unlisted = "tracewire-" + "unlisted";
        assertThrows(org.opentest4j.AssertionFailedError.class, () -> Prerequisites.requireTool(unlisted));
        assertTrue(Prerequisites.requireTool("true").toString().endsWith("/true"));
    }

    @Test
    void theLauncherInstallsWhatTheListSays() throws Exception {
        PrereqsList list = PrereqsList.load(PrereqsList.find());
        List<String> expected = list.packages().values().stream()
                .sorted(Comparator.comparingInt(PrereqsList.Entry::line))
                .filter(e -> e.scope().equals("run") || e.scope().equals("test"))
                .map(PrereqsList.Entry::pkg).toList();
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "source scripts/prereqs.sh && printf '%s\\n' \"${TRACEWIRE_PACKAGES[@]}\"")
                .directory(repoRoot().toFile()).redirectErrorStream(true);
        pb.environment().put("TRACEWIRE_TESTING", "1");
        pb.environment().remove("DISPLAY");
        pb.environment().remove("WAYLAND_DISPLAY");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertEquals(expected, out.lines().toList());
    }

    @Test
    void malformedLinesSayWhere(@TempDir Path tmp) throws IOException {
        Path bad = tmp.resolve("prereqs.list");
        Files.writeString(bad, "# c\nfoo run a\nbar sometimes b\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PrereqsList.load(bad));
        assertTrue(e.getMessage().contains(":3: unknown scope 'sometimes'"), e.getMessage());
    }
}
