package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.Prerequisites;

/**
 * The documentation's shape (issue 31): the README is a guide of at most {@value #README_MAX_LINES}
 * lines, every line of the README, {@code BENCHMARKS.md} and the Markdown files under
 * {@code docs/} is at most {@value #MAX_LINE} characters (Unicode code points), and every relative
 * link in them names a file or folder of the repository. Whether the README's commands run is
 * {@code ReadmeCommandsTest}'s (app module).
 */
class DocsLayoutTest {
    static final int README_MAX_LINES = 250;
    static final int MAX_LINE = 100;
    /** A Markdown link or image target: {@code ](target)} up to a space, {@code #} or {@code )}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)[^)]*\\)");

    private static Path root() {
        // snapshots/linux-6.18 lies in the repository root
        return Prerequisites.snapshot().getParent().getParent();
    }

    private static List<Path> markdown() throws IOException {
        Path root = root();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    @Test
    void readmeIsAGuideOfAtMost250Lines() throws IOException {
        List<String> lines = Files.readAllLines(root().resolve("README.md"), StandardCharsets.UTF_8);
        assertTrue(lines.size() <= README_MAX_LINES, "README.md has " + lines.size() + " lines, at most "
                + README_MAX_LINES + ": move reference material to docs/");
        assertTrue(lines.size() > 50, "README.md has only " + lines.size() + " lines");
    }

    @Test
    void everyLineIsAtMost100Characters() throws IOException {
        List<String> tooLong = new ArrayList<>();
        List<Path> files = markdown();
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                int length = lines.get(i).codePointCount(0, lines.get(i).length());
                if (length > MAX_LINE) {
                    tooLong.add(root().relativize(file) + ":" + (i + 1) + ": " + length + " characters");
                }
            }
        }
        assertTrue(files.size() >= 10, "expected the README, BENCHMARKS.md and docs/, found " + files);
        assertEquals(List.of(), tooLong, "lines over " + MAX_LINE + " characters");
    }

    @Test
    void relativeLinksNameFilesOfTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path file : markdown()) {
            Matcher m = LINK.matcher(Files.readString(file, StandardCharsets.UTF_8));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                links++;
                if (!Files.exists(file.getParent().resolve(target).normalize())) {
                    broken.add(root().relativize(file) + ": " + target);
                }
            }
        }
        assertTrue(links >= 10, "expected the README's links to docs/, found " + links);
        assertEquals(List.of(), broken, "links to files that do not exist");
    }
}
