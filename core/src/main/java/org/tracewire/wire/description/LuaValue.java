package org.tracewire.wire.description;

/** A value in a {@link LuaTable} (internal): a literal, a table, or a reference to a local. */
public sealed interface LuaValue permits LuaValue.Lit, LuaTable {

    /**
     * Lua source of a literal or of a local's name, made only by the factories below.
     *
     * @param code  the Lua source
     * @param value the literal's value for {@link EventDescription}'s binary tree: a {@link String},
     *              a {@link Long} or a {@link Boolean}; null for a local's name or generated code, which
     *              have no binary form
     */
    record Lit(String code, Object value) implements LuaValue {
        static Lit string(String text) {
            return new Lit(LuaWriter.string(text), text);
        }

        static Lit number(long v) {
            return new Lit(Long.toString(v), v);
        }

        /** A non-negative number written in hex. */
        static Lit hex(long v) {
            if (v < 0) {
                throw new IllegalArgumentException("negative " + v);
            }
            return new Lit("0x" + Long.toHexString(v), v);
        }

        static Lit bool(boolean b) {
            return new Lit(LuaWriter.bool(b), b);
        }

        /** A reference to a local named by {@link LuaWriter#name}. */
        static Lit local(String name) {
            if (!name.matches("[a-z][a-z0-9_]*")) {
                throw new IllegalArgumentException("not a generated name: " + name);
            }
            return new Lit(name, null);
        }

        /** Lua source this module generated itself (a function built from other tables). */
        public static Lit generated(String code) {
            return new Lit(code, null);
        }
    }
}
