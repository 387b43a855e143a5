package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.dissector.DissectorGenerator;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.description.LuaWriter;

/**
 * Java's print fmt {@link Evaluator} (C arithmetic by {@link CInt} from {@link CArith}'s rules)
 * and the Lua runtime's two evaluators (20-values, 40-evaluator, 45-fast-evaluator, reading the
 * same rules from the generated {@code TW_PARAMS.c_arith}) agree on seeded random C expressions:
 * typed constants of every width and signedness (edge values 0, ±1, min, max; shift counts
 * 0..63), arithmetic, bitwise, shift, comparison and logical operators, unary operators, casts
 * (to {@code bool} too) and conditionals, mixing types. The Lua side runs under plain
 * {@code lua5.2} and {@code lua5.4} (Wireshark's {@code UInt64}/{@code Int64}/{@code bit} from a
 * pure-Lua stand-in, {@code uint64-shim.lua}) and inside tshark (Wireshark's own, Lua 5.2). The
 * general evaluator must give the same type and bits or fail where Java fails (division by zero);
 * the fast evaluator, where it gives a value, the same type and value. gcc, compiling the same
 * expressions, is the reference for what C defines ({@link #gccAgrees}).
 */
class CArithAgreementTest {
    private static final long SEED = 0x32_c4_a1L;
    private static final int CASES = 3000;
    private static final int DEPTH = 4;
    private static final KernelLayout LAYOUT = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
    private static final String[] BINARY = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<",
        "<=", ">", ">=", "&&", "||"};
    private static final String[] UNARY = {"-", "~", "!", "+"};
    private static final String RESOURCES = "/org/tracewire/printfmt/";

    private static List<Expr> cases;
    private static List<String> expected;

    @BeforeAll
    static void generateAndEvaluateInJava() {
        Random random = new Random(SEED);
        cases = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            cases.add(expr(random, DEPTH));
        }
        EventFormat f = FormatParser.parse("test", "name: carith\nID: 1\nformat:\n"
                + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
                + "print fmt: \"\"\n", "carith");
        EventRecord record = new EventRecord(f, LAYOUT, 0, 0, ByteBuffer.allocate(2));
        Evaluator evaluator = new Evaluator(record, PrintContext.empty());
        expected = new ArrayList<>();
        for (Expr e : cases) {
            String r;
            try {
                Val.Int v = (Val.Int) evaluator.eval(e);
                r = v.size() + ":" + (v.signed() ? "s" : "u") + ":" + String.format("%016x", v.bits());
            } catch (EvalException ex) {
                r = "err";
            }
            expected.add(r);
        }
    }

    @Test
    void theCasesCoverEveryOperatorAndType() {
        Map<String, Integer> seen = new TreeMap<>();
        cases.forEach(e -> count(e, seen));
        for (String op : BINARY) {
            assertTrue(seen.getOrDefault("b" + op, 0) >= 100, "binary " + op + ": " + seen);
        }
        for (String op : UNARY) {
            assertTrue(seen.getOrDefault("u" + op, 0) >= 50, "unary " + op + ": " + seen);
        }
        for (CArith.IntType t : CArith.TYPES) {
            assertTrue(seen.getOrDefault("k" + t.name(), 0) >= 200, "constants of " + t.name() + ": " + seen);
            assertTrue(seen.getOrDefault("c" + t.name(), 0) >= 20, "casts to " + t.name() + ": " + seen);
        }
        assertTrue(expected.contains("err"), "some cases divide by zero");
    }

    @Test
    void luaFiveTwoAgrees(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("lua5.2");
        compare("lua5.2", run(dir, "lua5.2", true));
    }

    @Test
    void luaFiveFourAgrees(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("lua5.4");
        compare("lua5.4", run(dir, "lua5.4", true));
    }

    @Test
    @Tag("tshark")
    void wiresharksLuaAgrees(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("tshark");
        compare("tshark", run(dir, "tshark", false));
    }

    /**
     * gcc, the kernel's compiler, agrees where C defines the result: each case compiled
     * ({@code -O0 -fwrapv}, as the kernel's {@code -fno-strict-overflow}) with every constant in a
     * {@code volatile} variable, so x86 computes it at run time as the kernel's code would. Not
     * compared: cases Java refuses (division by zero, also in a branch C does not take) and cases
     * that trap on x86 (the type's minimum divided by -1: SIGFPE, caught per case).
     */
    @Test
    void gccAgrees(@TempDir Path dir) throws Exception {
        Prerequisites.requireTool("gcc");
        StringBuilder c = new StringBuilder(1 << 20);
        c.append("#include <setjmp.h>\n#include <signal.h>\n#include <stdio.h>\n#include <string.h>\n");
        c.append("static sigjmp_buf trap;\nstatic void on_fpe(int s) { (void) s; siglongjmp(trap, 1); }\n");
        c.append("#define R(N, E) if (sigsetjmp(trap, 1)) printf(\"%d trap\\n\", N); else if (((__typeof__(E)) -1) < 0) "
                + "printf(\"%d %d:s:%016llx\\n\", N, (int) sizeof(E), (unsigned long long) (long long) (E)); else "
                + "printf(\"%d %d:u:%016llx\\n\", N, (int) sizeof(E), (unsigned long long) (E));\n");
        StringBuilder body = new StringBuilder(1 << 20);
        int[] leaf = {0};
        for (int i = 0; i < CASES; i++) {
            body.append("R(").append(i + 1).append(", ").append(c(cases.get(i), c, leaf)).append(")\n");
        }
        c.append("int main(void) {\n  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = on_fpe;\n")
                .append("  sigaction(SIGFPE, &sa, NULL);\n").append(body).append("  return 0;\n}\n");
        Path src = dir.resolve("carith.c");
        Files.writeString(src, c, StandardCharsets.UTF_8);
        Path exe = dir.resolve("carith");
        List<String> build = exec(dir, "gcc", List.of("gcc", "-O0", "-fwrapv", "-w", "-o", exe.toString(), src.toString()));
        assertTrue(build.isEmpty() || Files.isExecutable(exe), "gcc: " + build);
        List<String> lines = exec(dir, "carith", List.of(exe.toString()));
        assertEquals(CASES, lines.size(), "the program printed " + lines.size() + " results");
        List<String> bad = new ArrayList<>();
        int compared = 0;
        for (int i = 0; i < CASES; i++) {
            String[] p = lines.get(i).split(" ");
            assertEquals(String.valueOf(i + 1), p[0], "line " + (i + 1));
            String want = expected.get(i);
            if (want.equals("err") || p[1].equals("trap")) {
                continue;
            }
            compared++;
            if (!want.equals(p[1])) {
                bad.add("gcc " + p[1] + " java " + want + ": " + c(cases.get(i), new StringBuilder(), new int[1]));
            }
        }
        assertTrue(bad.isEmpty(), "gcc: " + bad.size() + " disagreements, e.g. " + bad.subList(0, Math.min(5, bad.size())));
        assertTrue(compared >= CASES * 3 / 4, "only " + compared + " cases compared");
    }

    /** Runs a command in {@code dir}; its standard output lines (fails on a non-zero exit). */
    private static List<String> exec(Path dir, String name, List<String> cmd) throws IOException, InterruptedException {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), name + " did not finish");
        assertEquals(0, p.exitValue(), name + ": " + Files.readString(err));
        return Files.readAllLines(out);
    }

    /**
     * An expression in C; each constant becomes a {@code static volatile} variable declared in
     * {@code decls} (numbered by {@code leaf}), so gcc cannot fold it.
     */
    private static String c(Expr e, StringBuilder decls, int[] leaf) {
        if (e instanceof Expr.IntLit l) {
            String type = CArith.TYPES.stream().filter(t -> t.size() == l.size() && t.signed() == l.signed())
                    .findFirst().orElseThrow().name();
            String name = "k" + leaf[0]++;
            decls.append("static volatile ").append(type).append(' ').append(name).append(" = (").append(type)
                    .append(") 0x").append(Long.toHexString(CInt.extend(l.value(), l.size(), l.signed())))
                    .append("ULL;\n");
            return name;
        } else if (e instanceof Expr.Unary u) {
            return "(" + u.op() + " " + c(u.operand(), decls, leaf) + ")";
        } else if (e instanceof Expr.Binary b) {
            return "(" + c(b.left(), decls, leaf) + " " + b.op() + " " + c(b.right(), decls, leaf) + ")";
        } else if (e instanceof Expr.Ternary t) {
            return "(" + c(t.cond(), decls, leaf) + " ? " + c(t.then(), decls, leaf) + " : "
                    + c(t.otherwise(), decls, leaf) + ")";
        } else if (e instanceof Expr.Cast k) {
            String type = k.type().normalized().equals("bool") ? "_Bool" : k.type().text();
            return "((" + type + ") " + c(k.operand(), decls, leaf) + ")";
        }
        throw new IllegalArgumentException("not generated: " + e);
    }

    /** Compares the harness's lines with Java's results; returns nothing, fails with the first few differences. */
    private static void compare(String who, List<String> lines) {
        assertEquals(CASES, lines.size(), who + " printed " + lines.size() + " results");
        List<String> bad = new ArrayList<>();
        int fast = 0;
        for (int i = 0; i < CASES; i++) {
            String[] p = lines.get(i).split(" ");
            assertEquals(String.valueOf(i + 1), p[0], who + " line " + (i + 1));
            String want = expected.get(i);
            if (!want.equals(p[1])) {
                bad.add("general " + p[1] + " java " + want + ": " + lua(cases.get(i)));
            }
            if (!p[2].equals("-") && !p[2].equals("nil")) {
                fast++;
                if (!want.equals(fastAsGeneral(p[2]))) {
                    bad.add("fast " + p[2] + " java " + want + ": " + lua(cases.get(i)));
                }
            }
        }
        assertTrue(bad.isEmpty(), who + ": " + bad.size() + " disagreements, e.g. " + bad.subList(0, Math.min(5, bad.size())));
        assertTrue(fast >= CASES / 4, who + ": the fast evaluator gave only " + fast + " values");
    }

    /** {@code size:s|u:decimal} as {@code size:s|u:16 hex digits} of the value's 64-bit pattern. */
    private static String fastAsGeneral(String fast) {
        String[] p = fast.split(":");
        long bits = new BigInteger(p[2]).longValue();
        return p[0] + ":" + p[1] + ":" + String.format("%016x", bits);
    }

    /** Runs the harness chunk under {@code lua5.2}/{@code lua5.4}, or inside tshark; its output lines. */
    private static List<String> run(Path dir, String tool, boolean shim) throws IOException, InterruptedException {
        StringBuilder chunk = new StringBuilder(1 << 18);
        if (shim) {
            chunk.append(resource("uint64-shim.lua"));
        }
        chunk.append(DissectorGenerator.params("0000000000000000", LAYOUT.longSize(), "CArithAgreementTest"));
        for (String name : List.of("20-values.lua", "40-evaluator.lua", "45-fast-evaluator.lua")) {
            chunk.append(DissectorGenerator.runtimeFile(name));
        }
        chunk.append("local CASES = {\n");
        for (Expr e : cases) {
            chunk.append(lua(e)).append(",\n");
        }
        chunk.append("}\n").append(resource("carith-harness.lua"));
        Path script = dir.resolve("carith.lua");
        Files.writeString(script, chunk, StandardCharsets.UTF_8);
        List<String> cmd;
        if (tool.equals("tshark")) {
            // an empty pcap (header only): tshark loads the script, which prints, then reads nothing
            Path pcap = dir.resolve("empty.pcap");
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
            Files.write(pcap, h.array());
            cmd = List.of("tshark", "-X", "lua_script:" + script, "-r", pcap.toString());
        } else {
            cmd = List.of(tool, script.toString());
        }
        Path out = dir.resolve(tool + ".out");
        Path err = dir.resolve(tool + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), tool + " did not finish");
        String stderr = Files.readString(err);
        assertEquals(0, p.exitValue(), tool + ": " + stderr);
        List<String> lines = Files.readAllLines(out).stream().filter(l -> l.matches("[0-9]+ .*")).toList();
        assertTrue(!lines.isEmpty(), tool + " printed no results: " + stderr);
        return lines;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = CArithAgreementTest.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + name + " missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    // ------------------------------------------------------------------ random expressions

    private static Expr expr(Random r, int depth) {
        int k = r.nextInt(20);
        if (depth == 0 || k < 4) {
            return constant(r, r.nextInt(CArith.TYPES.size()), edge(r));
        }
        if (k < 6) {
            return new Expr.Unary(UNARY[r.nextInt(UNARY.length)], expr(r, depth - 1), 0);
        }
        if (k < 8) {
            String type = r.nextInt(8) == 0 ? "bool" : CArith.TYPES.get(r.nextInt(CArith.TYPES.size())).name();
            return new Expr.Cast(new CType(type, false), expr(r, depth - 1), 0);
        }
        if (k < 9) {
            return new Expr.Ternary(expr(r, depth - 1), expr(r, depth - 1), expr(r, depth - 1), 0);
        }
        String op = BINARY[r.nextInt(BINARY.length)];
        Expr right = (op.equals("<<") || op.equals(">>")) && r.nextInt(4) != 0
                ? constant(r, r.nextInt(CArith.TYPES.size()), r.nextInt(64))
                : expr(r, depth - 1);
        return new Expr.Binary(op, expr(r, depth - 1), right, 0);
    }

    /** Edge values (0, ±1, 2, min, max, min+1, max-1 of the constant's type) or random bits. */
    private static long edge(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> -1;
            case 3 -> 2;
            case 4 -> Long.MIN_VALUE; // LLONG_MIN; 0 once truncated to a narrower type
            case 5 -> Long.MAX_VALUE; // LLONG_MAX; all ones (-1 or the max) in a narrower type
            case 6 -> r.nextInt(2) == 0 ? 0x80L : 0x8000L;
            case 7 -> r.nextInt(2) == 0 ? 0x7fffffffL : 0x80000000L;
            case 8 -> r.nextInt(200) - 100;
            default -> r.nextLong();
        };
    }

    private static Expr constant(Random r, int type, long value) {
        CArith.IntType t = CArith.TYPES.get(type);
        long bits = CInt.extend(value, t.size(), t.signed());
        if (t.size() < 8 && r.nextInt(4) == 0) {
            // the type's own min and max
            long max = t.signed() ? (1L << (t.size() * 8 - 1)) - 1 : (1L << (t.size() * 8)) - 1;
            bits = r.nextBoolean() ? max : (t.signed() ? -max - 1 : 0);
        }
        return new Expr.IntLit(bits, t.size(), t.signed(), false, 0);
    }

    private static void count(Expr e, Map<String, Integer> seen) {
        if (e instanceof Expr.IntLit l) {
            for (CArith.IntType t : CArith.TYPES) {
                if (t.size() == l.size() && t.signed() == l.signed()) {
                    seen.merge("k" + t.name(), 1, Integer::sum);
                }
            }
        } else if (e instanceof Expr.Unary u) {
            seen.merge("u" + u.op(), 1, Integer::sum);
            count(u.operand(), seen);
        } else if (e instanceof Expr.Binary b) {
            seen.merge("b" + b.op(), 1, Integer::sum);
            count(b.left(), seen);
            count(b.right(), seen);
        } else if (e instanceof Expr.Ternary t) {
            count(t.cond(), seen);
            count(t.then(), seen);
            count(t.otherwise(), seen);
        } else if (e instanceof Expr.Cast c) {
            seen.merge("c" + c.type().text(), 1, Integer::sum);
            count(c.operand(), seen);
        }
    }

    /** The harness's table form of an expression (carith-harness.lua). */
    private static String lua(Expr e) {
        if (e instanceof Expr.IntLit l) {
            long bits = CInt.extend(l.value(), l.size(), l.signed());
            return "{\"k\", " + (bits & 0xffffffffL) + ", " + (bits >>> 32) + ", " + l.size() + ", " + l.signed() + "}";
        } else if (e instanceof Expr.Unary u) {
            return "{\"u\", " + LuaWriter.string(u.op()) + ", " + lua(u.operand()) + "}";
        } else if (e instanceof Expr.Binary b) {
            return "{\"b\", " + LuaWriter.string(b.op()) + ", " + lua(b.left()) + ", " + lua(b.right()) + "}";
        } else if (e instanceof Expr.Ternary t) {
            return "{\"t\", " + lua(t.cond()) + ", " + lua(t.then()) + ", " + lua(t.otherwise()) + "}";
        } else if (e instanceof Expr.Cast c) {
            if (c.type().normalized().equals("bool")) {
                return "{\"c\", \"bool\", " + lua(c.operand()) + "}";
            }
            return "{\"c\", " + c.type().size(LAYOUT.longSize()) + ", " + c.type().signed() + ", " + lua(c.operand()) + "}";
        }
        throw new IllegalArgumentException("not generated: " + e);
    }
}
