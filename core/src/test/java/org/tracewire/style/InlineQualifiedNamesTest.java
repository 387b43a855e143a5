package org.tracewire.style;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No inline fully-qualified type names where an import serves: a main source line of the library
 * and process modules (the app included) names no type by its qualified name ({@code java.},
 * {@code org.tracewire.}, a library's {@code com.sun.jna.}, {@code sun.misc.}, … : lower-case
 * package names before an upper-case type name) outside the package and import lines. Comments (javadoc {@code {@link ...}} included) and string literals
 * are not code. A qualified name stays allowed where the file imports or declares another type of
 * the same simple name (the clash an import cannot serve).
 */
class InlineQualifiedNamesTest {
    /** The modules whose main code the rule covers, relative to the repository root. */
    static final List<String> MODULES = List.of("core", "capture", "dissector-gen", "store", "backend", "cli", "app", "benchmarks");

    private static final Pattern QUALIFIED =
            Pattern.compile("(?<![\\w.])(?!this\\.|super\\.)([a-z][a-z0-9_]*(?:\\.[a-z_][a-z0-9_]*)+)\\.([A-Z]\\w*)");
    private static final Pattern HEADER = Pattern.compile("(?m)^(?:package|import)\\s[^;]*;");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?!static)([\\w.]+)\\.(\\w+);");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");

    @Test
    void mainSourcesUseImports() throws IOException {
        Path root = repositoryRoot();
        List<String> found = new ArrayList<>();
        int files = 0;
        for (String module : MODULES) {
            Path main = root.resolve(module).resolve("src/main/java");
            assertTrue(Files.isDirectory(main), "no " + main);
            try (Stream<Path> s = Files.walk(main)) {
                for (Path f : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    files++;
                    for (String hit : violations(Files.readString(f))) {
                        found.add(root.relativize(f) + ": " + hit);
                    }
                }
            }
        }
        assertTrue(files > 100, "main sources scanned: " + files);
        assertEquals(List.of(), found, "inline qualified names where an import serves");
    }

    /** Meta-test: the scan finds a qualified name in code and none in comments, strings or headers. */
    @Test
    void scanFindsCodeOnly() {
        String src = """
                package org.tracewire.x;

                import java.util.List;
                import java.lang.reflect.Field;

                /** See {@link java.util.Map} and {@link org.tracewire.format.EventFormat}. */
                class A {
                    // java.util.Set in a comment
                    String s = "java.util.Deque and \\" org.tracewire.io.Posix";
                    char c = '"';
                    java.util.concurrent.CountDownLatch latch = new java.util.concurrent.CountDownLatch(1);
                    /* org.tracewire.wire.WireHeader */ List<org.tracewire.format.Field> fields;
                    String t = \"""
                        java.nio.file.Files in a text block
                        \""";
                    Object o = org.tracewire.wire.WireHeader.SIZE;
                    com.sun.jna.Pointer p = this.list.EMPTY;
                    void f() { sun.misc.Signal.handle(null, null); }
                }
                """;
        assertEquals(List.of("line 11: java.util.concurrent.CountDownLatch", "line 11: java.util.concurrent.CountDownLatch",
                "line 16: org.tracewire.wire.WireHeader", "line 17: com.sun.jna.Pointer", "line 18: sun.misc.Signal"),
                violations(src));
    }

    /** The qualified names in code outside the header, as {@code line N: name}. */
    static List<String> violations(String src) {
        String code = blankCommentsAndStrings(src);
        int body = 0;
        for (Matcher h = HEADER.matcher(code); h.find(); ) {
            body = h.end();
        }
        Set<String> otherTypes = new HashSet<>();
        for (Matcher m = IMPORT.matcher(code); m.find(); ) {
            otherTypes.add(m.group(1) + "." + m.group(2));
        }
        Set<String> declared = new HashSet<>();
        for (Matcher m = DECLARED.matcher(code); m.find(); ) {
            declared.add(m.group(1));
        }
        List<String> out = new ArrayList<>();
        for (Matcher m = QUALIFIED.matcher(code).region(body, code.length()); m.find(); ) {
            String qualified = m.group(1) + "." + m.group(2);
            String simple = m.group(2);
            boolean clash = declared.contains(simple) || otherTypes.stream()
                    .anyMatch(t -> t.endsWith("." + simple) && !t.equals(qualified));
            if (!clash) {
                out.add("line " + (1 + code.substring(0, m.start()).chars().filter(ch -> ch == '\n').count())
                        + ": " + qualified);
            }
        }
        return out;
    }

    /** The source with comments, string and char literals and text blocks blanked (line breaks kept). */
    static String blankCommentsAndStrings(String src) {
        StringBuilder out = new StringBuilder(src);
        int i = 0;
        int n = src.length();
        while (i < n) {
            int end;
            if (src.startsWith("//", i)) {
                end = src.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (src.startsWith("/*", i)) {
                end = src.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (src.startsWith("\"\"\"", i)) {
                end = i + 3;
                while (end < n && !src.startsWith("\"\"\"", end)) {
                    end += src.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 3);
            } else if (src.charAt(i) == '"' || src.charAt(i) == '\'') {
                char quote = src.charAt(i);
                end = i + 1;
                while (end < n && src.charAt(end) != quote && src.charAt(end) != '\n') {
                    end += src.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 1);
            } else {
                i++;
                continue;
            }
            for (int k = i; k < end; k++) {
                if (out.charAt(k) != '\n') {
                    out.setCharAt(k, ' ');
                }
            }
            i = end;
        }
        return out.toString();
    }

    static Path repositoryRoot() {
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("core/src/main/java")) && Files.isDirectory(dir.resolve("backend/src/main/java"))) {
                return dir;
            }
        }
        throw new AssertionError("no repository root above " + System.getProperty("user.dir"));
    }
}
