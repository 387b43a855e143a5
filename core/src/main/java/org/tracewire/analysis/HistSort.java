package org.tracewire.analysis;

import java.util.Objects;

/**
 * One sort key of a hist trigger: {@code hitcount}, a value or a key field, ascending unless
 * {@code .descending} ({@code Documentation/trace/histogram.rst}: "sort=bytes_req.descending").
 *
 * @param field      {@code hitcount}, a value field or a key field (the bare name, no modifier)
 * @param descending true for {@code .descending}
 */
public record HistSort(String field, boolean descending) {
    /** The kernel's default: {@code sort=hitcount}, ascending. */
    public static final HistSort HITCOUNT = new HistSort("hitcount", false);

    public HistSort {
        Objects.requireNonNull(field, "field");
    }
}
