package org.tracewire.dissector;

/** A value in a {@link LuaTable} (internal): a literal, a table, or a reference to a local. */
sealed interface LuaValue permits LuaValue.Lit, LuaTable {

    /** Lua source of a literal or of a local's name, made only by the factories below. */
    record Lit(String code) implements LuaValue {
        static Lit string(String text) {
            return new Lit(LuaWriter.string(text));
        }

        static Lit number(long v) {
            return new Lit(Long.toString(v));
        }

        static Lit bool(boolean b) {
            return new Lit(LuaWriter.bool(b));
        }

        /** A reference to a local named by {@link LuaWriter#name}. */
        static Lit local(String name) {
            if (!name.matches("[a-z][a-z0-9_]*")) {
                throw new IllegalArgumentException("not a generated name: " + name);
            }
            return new Lit(name);
        }

        /** Lua source this module generated itself (a function built from other tables). */
        static Lit generated(String code) {
            return new Lit(code);
        }
    }
}
