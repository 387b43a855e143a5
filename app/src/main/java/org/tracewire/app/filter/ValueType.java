package org.tracewire.app.filter;

import java.math.BigInteger;
import org.tracewire.format.Field;

/** How a field's value is written and checked in a filter condition. */
public enum ValueType {
    /** A signed integer of the field's size. */
    SIGNED,
    /** An unsigned integer of the field's size. */
    UNSIGNED,
    /** A pointer: an unsigned integer, usually written in hex. */
    POINTER,
    /** A string (char array or {@code __data_loc char[]}). */
    STRING,
    /** Arrays, cpumasks and opaque fields cannot be filtered on. */
    UNSUPPORTED;

    /** @param f a parsed field @return its value type */
    public static ValueType of(Field f) {
        return switch (f.kind()) {
            case INTEGER -> f.signed() ? SIGNED : UNSIGNED;
            case POINTER -> POINTER;
            case CHAR_ARRAY, DYNAMIC_STRING -> STRING;
            default -> UNSUPPORTED;
        };
    }

    /**
     * Checks a value typed by the user.
     *
     * @param text the value
     * @param size the field's size in bytes (integers)
     * @return an error message, or empty when valid
     */
    public String validate(String text, int size) {
        if (this == UNSUPPORTED) {
            return "this field cannot be filtered on";
        }
        if (text == null || text.isEmpty()) {
            return this == STRING ? "" : "enter a number";
        }
        if (this == STRING) {
            if (text.indexOf('\n') >= 0) {
                return "a string cannot hold a line break";
            }
            return text.indexOf('"') >= 0 && text.indexOf('\'') >= 0
                    ? "the kernel's filter strings cannot hold both ' and \"" : "";
        }
        BigInteger v = parseInteger(text.strip());
        if (v == null) {
            return "'" + text.strip() + "' is not a number (decimal, 0x hex or 0 octal)";
        }
        int bits = Math.max(1, Math.min(size, 8)) * 8;
        BigInteger min;
        BigInteger max;
        if (this == SIGNED) {
            min = BigInteger.ONE.shiftLeft(bits - 1).negate();
            max = BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
        } else {
            min = BigInteger.ZERO;
            max = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        }
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
            return "out of range for a " + (this == SIGNED ? "signed" : "unsigned") + " " + bits + "-bit field ("
                    + min + " … " + max + ")";
        }
        return "";
    }

    /**
     * Parses decimal, {@code 0x} hex or {@code 0} octal, with an optional minus sign.
     *
     * @param s the text
     * @return the value, or null when not a number
     */
    public static BigInteger parseInteger(String s) {
        try {
            boolean neg = s.startsWith("-");
            String t = neg ? s.substring(1) : s;
            BigInteger v;
            if (t.startsWith("0x") || t.startsWith("0X")) {
                v = new BigInteger(t.substring(2), 16);
            } else if (t.length() > 1 && t.startsWith("0")) {
                v = new BigInteger(t.substring(1), 8);
            } else {
                v = new BigInteger(t, 10);
            }
            return neg ? v.negate() : v;
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            return null;
        }
    }
}
