package org.tracewire.wire.description;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * A Lua table constructor under construction, and its pretty printer (internal). Entries keep
 * their insertion order, so output is deterministic. Values are literals made by {@link LuaWriter}
 * (strings, numbers, booleans), nested tables, or references to locals the generator named through
 * {@link LuaWriter#name}; keys are identifiers written in this module's code or integers. Nothing a
 * caller passes becomes Lua source without going through {@link LuaWriter}.
 *
 * <p>Layout: {@link Style#INLINE} tables stay on one line (except nested vertical tables),
 * {@link Style#VERTICAL} tables put one entry per line, {@link Style#AUTO} tables are inline when
 * they fit {@link #WIDTH} columns, else vertical.
 */
public final class LuaTable implements LuaValue {
    /** Column limit for {@link Style#AUTO} tables. */
    static final int WIDTH = 110;

    /** How a table is laid out. */
    enum Style { INLINE, VERTICAL, AUTO }

    private record Entry(String key, LuaValue value) {
    }

    private final Style style;
    private final List<Entry> entries = new ArrayList<>();
    private String inline;
    /** What the generator may call this table when it becomes a shared local (a {@link LuaWriter#name}). */
    String nameHint;

    LuaTable(Style style) {
        this.style = style;
    }

    public static LuaTable inline() {
        return new LuaTable(Style.INLINE);
    }

    public static LuaTable vertical() {
        return new LuaTable(Style.VERTICAL);
    }

    public static LuaTable auto() {
        return new LuaTable(Style.AUTO);
    }

    private LuaTable put(String key, LuaValue v) {
        if (inline != null) {
            throw new IllegalStateException("table already rendered");
        }
        entries.add(new Entry(key, v));
        return this;
    }

    private static String ident(String key) {
        if (!key.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not an identifier key: " + key);
        }
        return key;
    }

    /** {@code key = "text"}. */
    public LuaTable str(String key, String text) {
        return put(ident(key), LuaValue.Lit.string(text));
    }

    /** {@code key = n}. */
    public LuaTable num(String key, long n) {
        return put(ident(key), LuaValue.Lit.number(n));
    }

    /** {@code key = 0x...} (a non-negative number in hex). */
    public LuaTable hex(String key, long n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative " + n);
        }
        return put(ident(key), LuaValue.Lit.hex(n));
    }

    /** {@code key = true}. */
    public LuaTable bool(String key, boolean b) {
        return put(ident(key), LuaValue.Lit.bool(b));
    }

    /** {@code key = value}. */
    public LuaTable set(String key, LuaValue v) {
        return put(ident(key), v);
    }

    /** {@code [k] = "text"}. */
    public LuaTable at(long k, String text) {
        return put("[" + k + "]", LuaValue.Lit.string(text));
    }

    /** A positional entry. */
    public LuaTable add(LuaValue v) {
        return put(null, v);
    }

    /**
     * Appends this table in the binary tree form of docs/wire-format.md §4.6 (tag 0x05: u32 n and the
     * n positional values, then u32 m and m × (u32 key length, key bytes, value); big-endian).
     *
     * @throws IllegalStateException for a value without a binary form (generated code, a local's
     *                               name) or a non-identifier key ({@code [k]})
     */
    public void encode(DataOutputStream out) throws IOException {
        int n = 0;
        for (Entry e : entries) {
            if (e.key == null) {
                n++;
            } else if (e.key.startsWith("[")) {
                throw new IllegalStateException("key " + e.key + " has no binary form");
            }
        }
        out.writeByte(0x05);
        out.writeInt(n);
        for (Entry e : entries) {
            if (e.key == null) {
                encodeValue(e.value, out);
            }
        }
        out.writeInt(entries.size() - n);
        for (Entry e : entries) {
            if (e.key != null) {
                byte[] k = e.key.getBytes(StandardCharsets.UTF_8);
                out.writeInt(k.length);
                out.write(k);
                encodeValue(e.value, out);
            }
        }
    }

    private static void encodeValue(LuaValue v, DataOutputStream out) throws IOException {
        if (v instanceof LuaTable t) {
            t.encode(out);
            return;
        }
        Object x = ((LuaValue.Lit) v).value();
        if (x instanceof String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeByte(0x01);
            out.writeInt(b.length);
            out.write(b);
        } else if (x instanceof Long l) {
            out.writeByte(0x02);
            out.writeLong(l);
        } else if (x instanceof Boolean b) {
            out.writeByte(b ? 0x03 : 0x04);
        } else {
            throw new IllegalStateException("no binary form for Lua code " + ((LuaValue.Lit) v).code());
        }
    }

    /** Deepest nesting of tables below and including this one. */
    public int depth() {
        int d = 0;
        for (Entry e : entries) {
            if (e.value instanceof LuaTable t) {
                d = Math.max(d, t.depth());
            }
        }
        return d + 1;
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The tables among this table's values, in order. */
    List<LuaTable> children() {
        List<LuaTable> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.value instanceof LuaTable t) {
                out.add(t);
            }
        }
        return out;
    }

    /** The one-line source of this table without shared locals: its identity for sharing. */
    String key() {
        if (inline == null) {
            inline = oneLine((v, at) -> v instanceof LuaTable t ? t.key() : ((LuaValue.Lit) v).code());
        }
        return inline;
    }

    /**
     * The table on one line, {@code {k = v, w}}; {@code value} gives a value's source from the value
     * and the length of the line before it.
     */
    private String oneLine(BiFunction<LuaValue, Integer, String> value) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            sb.append(i == 0 ? "" : ", ");
            if (e.key != null) {
                sb.append(e.key).append(" = ");
            }
            sb.append(value.apply(e.value, sb.length()));
        }
        return sb.append('}').toString();
    }

    /**
     * The table's source.
     *
     * @param indent indentation of the line the table starts on
     * @param col    column where the table starts
     * @param locals shared tables (by {@link #key()}) and the names of their locals; this table itself is
     *               written out even when it is one of them
     */
    public String render(int indent, int col, Map<String, String> locals) {
        if (entries.isEmpty()) {
            return "{}";
        }
        if (style != Style.VERTICAL) {
            String s = oneLine((v, at) -> value(v, indent, col + at, locals));
            if (style == Style.INLINE || (s.indexOf('\n') < 0 && col + s.length() <= WIDTH)) {
                return s;
            }
        }
        String pad = " ".repeat(indent + 2);
        StringBuilder sb = new StringBuilder("{\n");
        for (Entry e : entries) {
            String head = pad + (e.key == null ? "" : e.key + " = ");
            sb.append(head).append(value(e.value, indent + 2, head.length(), locals)).append(",\n");
        }
        return sb.append(" ".repeat(indent)).append('}').toString();
    }

    private static String value(LuaValue v, int indent, int col, Map<String, String> locals) {
        if (v instanceof LuaTable t) {
            String name = locals.get(t.key());
            return name != null ? name : t.render(indent, col, locals);
        }
        return ((LuaValue.Lit) v).code();
    }
}
