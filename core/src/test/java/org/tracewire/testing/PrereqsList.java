package org.tracewire.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assertions;

/**
 * The Debian packages tracewire needs and the executables they provide, as listed in
 * {@code scripts/prereqs.list}: the one list that {@code scripts/prereqs.sh} installs from and
 * that {@link Prerequisites#requireTool(String)} checks against, so a test cannot need a tool that
 * a fresh machine would not get.
 *
 * <p>Format, one package a line ({@code #} comments and blank lines ignored):
 * {@code PACKAGE SCOPE EXECUTABLE...}; scope is {@code run}, {@code gui}, {@code test} or
 * {@code base} (part of every Debian system, never installed); an executable {@code -} means
 * none.
 *
 * @param packages package name → its entry, in file order
 */
public record PrereqsList(Map<String, Entry> packages) {
    /** The scopes the launcher knows (scripts/prereqs.sh). */
    public static final Set<String> SCOPES = Set.of("run", "gui", "test", "base");

    /**
     * One package's line.
     *
     * @param pkg         the Debian package name
     * @param scope       one of {@link #SCOPES}
     * @param executables names (or absolute paths) of the executables it provides that are run
     * @param line        1-based line number in the file
     */
    public record Entry(String pkg, String scope, List<String> executables, int line) {
    }

    /**
     * Parses the list.
     *
     * @param file the list file
     * @return its entries
     * @throws IllegalArgumentException with {@code FILE:LINE: reason} for a malformed line (fewer
     *         than three words, an unknown scope, a package listed twice)
     * @throws UncheckedIOException when the file cannot be read
     */
    public static PrereqsList load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Entry> packages = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String[] words = text.split("\\s+");
            String where = file + ":" + (i + 1) + ": ";
            if (words.length < 3) {
                throw new IllegalArgumentException(where + "expected PACKAGE SCOPE EXECUTABLE..., got '" + text + "'");
            }
            if (!SCOPES.contains(words[1])) {
                throw new IllegalArgumentException(where + "unknown scope '" + words[1] + "' (one of " + SCOPES + ")");
            }
            List<String> exes = new ArrayList<>();
            for (int w = 2; w < words.length; w++) {
                if (!words[w].equals("-")) {
                    exes.add(words[w]);
                }
            }
            if (packages.put(words[0], new Entry(words[0], words[1], List.copyOf(exes), i + 1)) != null) {
                throw new IllegalArgumentException(where + "package " + words[0] + " listed twice");
            }
        }
        return new PrereqsList(Map.copyOf(packages));
    }

    /**
     * The list of this repository: {@value Prerequisites#PREREQS_LIST} found by walking up from
     * {@code user.dir} (each module's tests run in the module's folder).
     *
     * @return the list file (fails the test when there is none: it is part of the repository)
     */
    public static Path find() {
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(Prerequisites.PREREQS_LIST);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return Assertions.fail("no " + Prerequisites.PREREQS_LIST + " above " + System.getProperty("user.dir"));
    }

    /** True when some package lists {@code executable} (a command name, or an absolute path as written). */
    public boolean covers(String executable) {
        return packages.values().stream().anyMatch(e -> e.executables().contains(executable));
    }
}
