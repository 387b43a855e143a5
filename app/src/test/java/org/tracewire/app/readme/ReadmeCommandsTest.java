package org.tracewire.app.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.tracewire.testing.Prerequisites;

/**
 * Every command block of the README runs as written (issue 31). The README's fenced blocks are
 * {@code ```sh} blocks; a block that cannot run here (it needs a display, a remote host, or it is
 * the test suite itself) has the line {@code <!-- not run: REASON -->} right before its opening
 * fence. Every other block runs, in the README's order (later blocks use the files earlier ones
 * wrote), as {@code bash -e -o pipefail -c BLOCK} from the repository root, and must exit 0 within
 * {@value #TIMEOUT_S} s. Its commands go through the launcher ({@code ./tracewire}), so this test
 * runs in the app module's {@code readme} Surefire execution, in the integration-test phase: after
 * the jars the launcher runs are packaged (else the launcher would start a build of its own). The
 * files the blocks write under {@code /tmp} are removed afterwards.
 */
class ReadmeCommandsTest {
    private static final int TIMEOUT_S = 300;
    /** Set by the app pom's {@code readme} execution, which runs after {@code package}. */
    private static final String PACKAGED = "tracewire.readme.packaged";
    private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
    private static final Pattern NOT_RUN = Pattern.compile("^<!-- not run: (\\S.*\\S) -->$");
    private static final Pattern TMP_FILE = Pattern.compile("/tmp/[A-Za-z0-9._-]+");

    /**
     * A fenced block of the README.
     *
     * @param line         1-based line of its opening fence
     * @param language     the fence's info string ({@code sh})
     * @param body         the lines between the fences
     * @param notRunReason the reason of a {@code not run} mark before it, else null
     */
    record Block(int line, String language, String body, String notRunReason) {
        boolean runs() {
            return notRunReason == null;
        }
    }

    /**
     * The fenced blocks of a Markdown text.
     *
     * @throws IllegalArgumentException at a fence that is never closed, or a {@code not run} mark
     *                                  not followed by a fence
     */
    static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            Matcher mark = NOT_RUN.matcher(lines.get(i));
            if (mark.matches() && (i + 1 >= lines.size() || !FENCE.matcher(lines.get(i + 1)).matches())) {
                throw new IllegalArgumentException("line " + (i + 1) + ": a not-run mark must be right before a fence");
            }
            if (!open.matches()) {
                continue;
            }
            int start = i;
            StringBuilder body = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).equals("```"); i++) {
                body.append(lines.get(i)).append('\n');
            }
            if (i >= lines.size()) {
                throw new IllegalArgumentException("line " + (start + 1) + ": fence never closed");
            }
            Matcher before = start > 0 ? NOT_RUN.matcher(lines.get(start - 1)) : null;
            String reason = before != null && before.matches() ? before.group(1) : null;
            blocks.add(new Block(start + 1, open.group(1), body.toString(), reason));
        }
        return blocks;
    }

    private static Path root() {
        return Prerequisites.snapshot().getParent().getParent();
    }

    private static List<Block> readme() throws IOException {
        return blocks(Files.readAllLines(root().resolve("README.md"), StandardCharsets.UTF_8));
    }

    @Test
    void parsesFencesAndMarks() {
        List<Block> b = blocks(List.of("text", "```sh", "echo a", "echo b", "```", "",
                "<!-- not run: needs a display -->", "```sh", "wireshark", "```"));
        assertEquals(List.of(new Block(2, "sh", "echo a\necho b\n", null),
                new Block(8, "sh", "wireshark\n", "needs a display")), b);
        assertThrows("fence never closed", List.of("```sh", "echo"));
        assertThrows("a not-run mark must be right before a fence", List.of("<!-- not run: x y -->", "", "```sh",
                "x", "```"));
    }

    private static void assertThrows(String message, List<String> lines) {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> blocks(lines));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void everyBlockIsAShellBlockThatRunsOrSaysWhyNot() throws IOException {
        List<Block> blocks = readme();
        for (Block b : blocks) {
            assertEquals("sh", b.language(), "README.md line " + b.line() + ": fence it as ```sh (a command)");
            assertFalse(b.body().isBlank(), "README.md line " + b.line() + ": empty block");
        }
        assertTrue(blocks.stream().filter(Block::runs).count() >= 4,
                "expected the tour's blocks to run, found " + blocks);
    }

    @Tag("live")
    @Tag("tshark")
    @TestFactory
    Stream<DynamicTest> everyBlockNotMarkedRunsAsWritten() throws IOException {
        Assumptions.assumeTrue(Boolean.getBoolean(PACKAGED), "runs in the app module's readme execution, "
                + "after the launcher's jars are packaged (mvn verify -pl app -am)");
        Prerequisites.requireTracefs();
        Prerequisites.requireTool("bash");
        Prerequisites.requireTool("tshark");
        Prerequisites.requireTool("trace-cmd");
        Path root = root();
        List<Block> run = readme().stream().filter(Block::runs).toList();
        Map<Path, FileTime> before = new LinkedHashMap<>();
        for (Block b : run) {
            Matcher m = TMP_FILE.matcher(b.body());
            while (m.find()) {
                Path p = Path.of(m.group());
                before.put(p, Files.exists(p) ? Files.getLastModifiedTime(p) : null);
            }
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Block b : run) {
            String name = "README.md line " + b.line() + ": " + b.body().lines().findFirst().orElse("");
            tests.add(DynamicTest.dynamicTest(name, () -> runBlock(root, b)));
        }
        return tests.stream().onClose(() -> removeWritten(before));
    }

    private static void runBlock(Path root, Block b) throws IOException, InterruptedException {
        Path log = Files.createTempFile("tracewire-readme-", ".log");
        try {
            Process p = new ProcessBuilder("bash", "-e", "-o", "pipefail", "-c", b.body()).directory(root.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            p.getOutputStream().close(); // no terminal: standard input is empty
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
                p.waitFor(10, TimeUnit.SECONDS);
                fail("README.md line " + b.line() + ": still running after " + TIMEOUT_S + " s\n" + Files.readString(log));
            }
            String output = Files.readString(log);
            assertEquals(0, p.exitValue(), "README.md line " + b.line() + ":\n" + b.body() + "--- output:\n" + output);
            assertFalse(output.contains("Exception"), "README.md line " + b.line() + ":\n" + output);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Removes the /tmp files the blocks name that the run created or rewrote. */
    private static void removeWritten(Map<Path, FileTime> before) {
        before.forEach((p, time) -> {
            try {
                if (Files.isRegularFile(p) && (time == null || !time.equals(Files.getLastModifiedTime(p)))) {
                    Files.delete(p);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}
