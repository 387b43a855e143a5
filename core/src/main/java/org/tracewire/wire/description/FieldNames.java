package org.tracewire.wire.description;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Wireshark field abbreviations for generated fields: {@code tracewire.<system>.<event>.<field>},
 * lower case, each part reduced to {@code [a-z0-9_]} (Wireshark allows letters, digits, '-', '_'
 * and '.'; a '.' inside a part would add a level). Names that collide after this reduction get a
 * suffix {@code _2}, {@code _3}, … in generation order, so every abbreviation is unique.
 */
public final class FieldNames {
    /** Prefix of all tracewire fields. */
    public static final String PROTOCOL = "tracewire";
    private final Set<String> used = new HashSet<>();

    /** Reserves names so that generated fields never take them (the runtime's own fields). */
    public FieldNames(Set<String> reserved) {
        used.addAll(reserved);
    }

    /** One part of an abbreviation: lower case, every character outside {@code [a-z0-9_]} as '_'. */
    public static String part(String s) {
        String lower = s.toLowerCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            sb.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        return sb.length() == 0 ? "_" : sb.toString();
    }

    /** A unique abbreviation {@code parent.part(name)} (with a numeric suffix when taken). */
    public String unique(String parent, String name) {
        String base = parent + "." + part(name);
        String candidate = base;
        for (int n = 2; !used.add(candidate); n++) {
            candidate = base + "_" + n;
        }
        return candidate;
    }

    /** The event's prefix {@code tracewire.<system>.<event>} (not reserved: fields hang below it). */
    public static String eventPrefix(String system, String event) {
        return PROTOCOL + "." + part(system) + "." + part(event);
    }
}
