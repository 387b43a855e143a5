package org.tracewire.style;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Units a newcomer can hold: every main source file of the modules {@link
 * InlineQualifiedNamesTest#MODULES} covers has at most {@value #MAX_FILE_LINES} lines, and every
 * method or constructor body at most {@value #MAX_METHOD_LINES} lines (from the line of its
 * opening brace to the line of its closing brace; a lambda or anonymous class counts toward the
 * method that holds it). Methods are found by the JDK's own parser ({@code com.sun.source}), so
 * braces in strings, text blocks, chars and comments cannot mislead the count.
 *
 * <p>A unit may stay longer only with a one-line reason (docs/development.md, "Unit sizes"):
 * {@code // Long file: <reason>} on a line of its own before the first type declaration of the
 * file, or {@code // Long: <reason>} on the line right above the method's first line (its first
 * annotation or modifier). A reason has at least {@value #MIN_REASON_CHARS} characters.
 */
class UnitSizeTest {
    static final int MAX_FILE_LINES = 500;
    static final int MAX_METHOD_LINES = 60;
    static final int MIN_REASON_CHARS = 15;

    private static final Pattern FILE_REASON = Pattern.compile("^\\s*// Long file: (\\S.*)$");
    private static final Pattern METHOD_REASON = Pattern.compile("^\\s*// Long: (\\S.*)$");

    @Test
    void mainSourcesAreUnitsANewcomerCanHold() throws IOException {
        Path root = InlineQualifiedNamesTest.repositoryRoot();
        List<String> found = new ArrayList<>();
        int files = 0;
        for (String module : InlineQualifiedNamesTest.MODULES) {
            Path main = root.resolve(module).resolve("src/main/java");
            assertTrue(Files.isDirectory(main), "no " + main);
            List<Path> paths;
            try (Stream<Path> s = Files.walk(main)) {
                paths = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
            }
            List<String> sources = new ArrayList<>();
            for (Path f : paths) {
                sources.add(Files.readString(f));
            }
            List<Parsed> parsed = Parsed.all(sources); // one parser for the module: far faster than one per file
            for (int i = 0; i < paths.size(); i++) {
                files++;
                String rel = root.relativize(paths.get(i)).toString();
                for (Offender o : offenders(sources.get(i), parsed.get(i))) {
                    found.add(rel + ":" + o.line() + " " + o.describe());
                }
            }
        }
        assertTrue(files > 100, "main sources scanned: " + files);
        assertTrue(found.isEmpty(), "units over " + MAX_FILE_LINES + " lines (file) or " + MAX_METHOD_LINES
                + " lines (method body) without a '// Long file: ' / '// Long: ' reason: split them"
                + " (docs/development.md, \"Unit sizes\"):\n  " + String.join("\n  ", found));
    }

    /** Meta-test: lengths come from the parser, not from braces in strings, chars or comments. */
    @Test
    void measuresBodiesNotBracesInLiterals() {
        StringBuilder src = new StringBuilder("""
                package x;

                class A {
                    A() {
                        String s = "}}}{";
                        char c = '}';
                        // }
                        /* } */
                        String t = \"""
                            }
                            \""";
                    }

                    Runnable r() {
                        return new Runnable() {
                            @Override
                            public void run() {
                                System.out.println("{");
                            }
                        };
                    }

                    // Long: a generated table of every opcode, read top to bottom
                    @Deprecated
                    int table() {
                """);
        for (int i = 0; i < 70; i++) {
            src.append("        int v").append(i).append(" = ").append(i).append(";\n");
        }
        src.append("""
                        return 0;
                    }

                    // Long: short
                    int tooShortAReason() {
                """);
        for (int i = 0; i < 60; i++) {
            src.append("        int v").append(i).append(" = '{';\n");
        }
        src.append("""
                        return 1;
                    }

                    interface I {
                        void abstractOne();
                    }
                }
                """);
        List<Offender> offenders = offenders(src.toString());
        assertEquals(List.of(new Offender(100, "tooShortAReason", 63)), offenders);
        List<Offender> all = measure(Parsed.of(src.toString()));
        assertEquals(List.of(new Offender(4, "A", 9), new Offender(14, "r", 8), new Offender(16, "run", 3),
                new Offender(24, "table", 73), new Offender(100, "tooShortAReason", 63)), all);
    }

    /** Meta-test: a file over the limit needs its reason before the first type declaration. */
    @Test
    void fileReasonMustComeBeforeTheType() {
        String body = "class B {\n" + "    int f;\n".repeat(MAX_FILE_LINES) + "}\n";
        assertEquals(List.of(new Offender(1, null, MAX_FILE_LINES + 3)), offenders("package x;\n" + body));
        assertEquals(List.of(), offenders("package x;\n// Long file: the opcode table generated from the spec\n" + body));
        assertEquals(List.of(new Offender(1, null, MAX_FILE_LINES + 4)),
                offenders("package x;\n" + body + "// Long file: the opcode table generated from the spec\n"));
    }

    /** A unit over its limit: {@code method} null for the file itself; {@code line} 1-based. */
    record Offender(int line, String method, int lines) {
        String describe() {
            return method == null ? "file has " + lines + " lines" : method + "(): body has " + lines + " lines";
        }
    }

    /** The file itself and the methods over their limits that carry no reason, in source order. */
    static List<Offender> offenders(String src) {
        return offenders(src, Parsed.of(src));
    }

    private static List<Offender> offenders(String src, Parsed parsed) {
        String[] lines = src.split("\n", -1);
        int fileLines = src.endsWith("\n") ? lines.length - 1 : lines.length;
        List<Offender> out = new ArrayList<>();
        if (fileLines > MAX_FILE_LINES && !hasFileReason(lines, parsed)) {
            out.add(new Offender(1, null, fileLines));
        }
        for (Offender m : measure(parsed)) {
            if (m.lines() > MAX_METHOD_LINES && !(m.line() >= 2 && isReason(METHOD_REASON, lines[m.line() - 2]))) {
                out.add(m);
            }
        }
        return out;
    }

    /** Every method and constructor with a body: its first line (annotations included) and body length. */
    static List<Offender> measure(Parsed parsed) {
        List<Offender> out = new ArrayList<>();
        new TreePathScanner<Void, Void>() {
            @Override
            public Void visitMethod(MethodTree m, Void unused) {
                if (m.getBody() != null) {
                    long open = parsed.startLine(m.getBody());
                    long close = parsed.lastLine(m.getBody());
                    String name = m.getName().toString();
                    if (name.equals("<init>") && getCurrentPath().getParentPath().getLeaf() instanceof ClassTree c) {
                        name = c.getSimpleName().toString();
                    }
                    out.add(new Offender((int) parsed.startLine(m), name, (int) (close - open + 1)));
                }
                return super.visitMethod(m, unused);
            }
        }.scan(parsed.unit(), null);
        return out;
    }

    private static boolean hasFileReason(String[] lines, Parsed parsed) {
        List<? extends Tree> types = parsed.unit().getTypeDecls();
        long firstType = types.isEmpty() ? lines.length : parsed.startLine(types.get(0));
        for (int i = 0; i < firstType - 1 && i < lines.length; i++) {
            if (isReason(FILE_REASON, lines[i])) {
                return true;
            }
        }
        return false;
    }

    private static boolean isReason(Pattern form, String line) {
        Matcher m = form.matcher(line);
        return m.matches() && m.group(1).strip().length() >= MIN_REASON_CHARS;
    }

    /** One compilation unit parsed (no attribution) by the JDK's compiler, with its trees' positions. */
    record Parsed(CompilationUnitTree unit, SourcePositions positions) {
        /** Parses {@code src}; an {@link AssertionError} on a syntax error, naming its line. */
        static Parsed of(String src) {
            return all(List.of(src)).get(0);
        }

        /** Parses each of {@code sources} in one parser run, in order; an {@link AssertionError} on a syntax error. */
        static List<Parsed> all(List<String> sources) {
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            assertNotNull(javac, "no system Java compiler: run the tests on a JDK");
            List<JavaFileObject> files = new ArrayList<>();
            for (int n = 0; n < sources.size(); n++) {
                String src = sources.get(n);
                files.add(new SimpleJavaFileObject(URI.create("string:///Unit" + n + ".java"), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return src;
                    }
                });
            }
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            JavacTask task = (JavacTask) javac.getTask(null, null, diagnostics, List.of("-proc:none"), null, files);
            Parsed[] out = new Parsed[files.size()];
            try {
                SourcePositions positions = Trees.instance(task).getSourcePositions();
                for (CompilationUnitTree unit : task.parse()) {
                    String name = unit.getSourceFile().toUri().getPath(); // "/UnitN.java"
                    out[Integer.parseInt(name.substring(5, name.length() - 5))] = new Parsed(unit, positions);
                }
            } catch (IOException e) {
                throw new AssertionError("cannot parse", e);
            }
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    throw new AssertionError(d.getSource().getName() + " line " + d.getLineNumber() + ": " + d.getMessage(null));
                }
            }
            List<Parsed> list = Arrays.asList(out);
            assertFalse(list.contains(null), "a source without its compilation unit");
            return list;
        }

        /** The 1-based line a tree starts on (a method's first annotation or modifier included). */
        long startLine(Tree tree) {
            return unit.getLineMap().getLineNumber(positions.getStartPosition(unit, tree));
        }

        /** The 1-based line of a tree's last character. */
        long lastLine(Tree tree) {
            return unit.getLineMap().getLineNumber(positions.getEndPosition(unit, tree) - 1);
        }
    }
}
