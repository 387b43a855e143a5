package org.tracewire.filter;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/**
 * Random filters for property tests, from a seeded {@link Random}: valid ones for an event (every
 * field, operator and value fits), arbitrary ones (any name, any value: usually invalid), and
 * random filter-like text.
 */
final class RandomFilters {
    private static final String STRING_CHARS = "ab*?[]!-\\'\" x/.Z0é";
    private final Random r;

    RandomFilters(long seed) {
        this.r = new Random(seed);
    }

    Random random() {
        return r;
    }

    /** The names a valid filter of this event may use. */
    static List<FilterField> filterable(EventFormat f) {
        List<FilterField> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Field x : f.fields()) {
            names.add(x.name());
        }
        names.addAll(List.of("common_pid", "common_flags", "common_preempt_count", "CPU", "cpu", "COMM", "comm"));
        for (String n : names) {
            FilterField ff = FilterField.resolve(f, n);
            if (ff != null && ff.type() != FilterField.Type.UNSUPPORTED && out.stream().noneMatch(o -> o.name().equals(n))) {
                out.add(ff);
            }
        }
        return out;
    }

    /** A valid filter for {@code f} with up to {@code depth} levels of connectives. */
    Filter valid(EventFormat f, int depth) {
        List<FilterField> fields = filterable(f);
        return valid(fields, depth);
    }

    private Filter valid(List<FilterField> fields, int depth) {
        int k = depth <= 0 ? 0 : r.nextInt(5);
        return switch (k) {
            case 1 -> new And(valid(fields, depth - 1), valid(fields, depth - 1));
            case 2 -> new Or(valid(fields, depth - 1), valid(fields, depth - 1));
            case 3 -> new Not(valid(fields, depth - 1));
            default -> leaf(fields.get(r.nextInt(fields.size())));
        };
    }

    /** A valid comparison on {@code f}. */
    Comparison leaf(FilterField f) {
        if (f.type() == FilterField.Type.NUMBER) {
            Op op = Op.values()[r.nextInt(Op.values().length - 1)];
            return new Comparison(f.name(), op, new Value.Num(number(f)));
        }
        Op op = new Op[] {Op.EQ, Op.NE, Op.GLOB}[r.nextInt(3)];
        int max = f.maxLength() < 0 ? 20 : Math.min(20, f.maxLength());
        String s = string(max);
        if (op == Op.GLOB) {
            while (s.startsWith("!")) {
                s = s.substring(1);
            }
            if (Glob.problem(s) != null) {
                s = s.substring(0, s.length() - 1);
            }
        }
        return new Comparison(f.name(), op, Value.of(s));
    }

    /** A number in the field's range, often at an edge. */
    BigInteger number(FilterField f) {
        return switch (r.nextInt(7)) {
            case 0 -> f.min();
            case 1 -> f.max();
            case 2 -> BigInteger.ZERO;
            case 3 -> BigInteger.ONE;
            case 4 -> f.signed() ? BigInteger.ONE.negate() : BigInteger.TWO;
            default -> {
                BigInteger span = f.max().subtract(f.min()).add(BigInteger.ONE);
                yield f.min().add(new BigInteger(span.bitLength() + 8, r).mod(span));
            }
        };
    }

    /** A string of at most {@code maxBytes} UTF-8 bytes that the kernel's syntax can hold. */
    String string(int maxBytes) {
        StringBuilder sb = new StringBuilder();
        int len = r.nextInt(maxBytes + 1);
        for (int i = 0; i < len; i++) {
            sb.append(STRING_CHARS.charAt(r.nextInt(STRING_CHARS.length())));
        }
        String s = sb.toString();
        if (s.indexOf('"') >= 0 && s.indexOf('\'') >= 0) {
            s = s.replace(r.nextBoolean() ? "\"" : "'", "x");
        }
        while (s.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    /** A filter with arbitrary names, operators and values (mostly invalid for any event). */
    Filter any(EventFormat f, int depth) {
        int k = depth <= 0 ? 0 : r.nextInt(5);
        return switch (k) {
            case 1 -> new And(any(f, depth - 1), any(f, depth - 1));
            case 2 -> new Or(any(f, depth - 1), any(f, depth - 1));
            case 3 -> new Not(any(f, depth - 1));
            default -> {
                List<FilterField> fields = filterable(f);
                String name = switch (r.nextInt(4)) {
                    case 0 -> "common_type";
                    case 1 -> "no_such_" + r.nextInt(10);
                    default -> fields.get(r.nextInt(fields.size())).name();
                };
                for (Field x : f.fields()) {
                    if (r.nextInt(8) == 0) {
                        name = x.name();
                    }
                }
                Op op = Op.values()[r.nextInt(Op.values().length)];
                Value v = r.nextBoolean()
                        ? new Value.Num(new BigInteger(64, r).subtract(BigInteger.ONE.shiftLeft(r.nextInt(64))))
                        : Value.of(r.nextInt(4) == 0 ? "a'b\"c" : r.nextInt(4) == 0 ? "x".repeat(300) : string(20) + (r.nextBoolean() ? "\\" : ""));
                yield new Comparison(name, op, v);
            }
        };
    }

    /** Filter-like text: tokens, fields, values and random characters. */
    String text(EventFormat f) {
        String[] tokens = {"&&", "||", "!", "(", ")", "==", "!=", "<", "<=", ">", ">=", "&", "~", "=", " ", " ", "\t",
                "\"", "'", "\"abc\"", "'x*'", "0x1f", "-1", "010", "08", "99999999999999999999", "1a", "-", ".",
                "prev_pid", "common_pid", "CPU", "COMM", "x", "\n", "\\"};
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(14);
        for (int i = 0; i < n; i++) {
            if (r.nextInt(10) == 0) {
                sb.append((char) r.nextInt(128));
            } else if (r.nextInt(6) == 0 && !f.fields().isEmpty()) {
                sb.append(f.fields().get(r.nextInt(f.fields().size())).name());
            } else {
                sb.append(tokens[r.nextInt(tokens.length)]);
            }
        }
        return sb.toString();
    }

    /** {@code text} with one random character inserted, deleted or replaced. */
    String mutate(String text) {
        StringBuilder sb = new StringBuilder(text);
        int at = sb.length() == 0 ? 0 : r.nextInt(sb.length());
        char c = "()!&|=<>~\"' x0-\\".charAt(r.nextInt(16));
        switch (r.nextInt(3)) {
            case 0 -> sb.insert(at, c);
            case 1 -> {
                if (sb.length() > 0) {
                    sb.deleteCharAt(at);
                }
            }
            default -> {
                if (sb.length() > 0) {
                    sb.setCharAt(at, c);
                }
            }
        }
        return sb.toString();
    }
}
