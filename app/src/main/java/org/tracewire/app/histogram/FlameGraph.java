package org.tracewire.app.histogram;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A flame graph's tree, built from folded stacks ({@code root;…;leaf} → count, as
 * {@link StoreHistogram#folded} aggregates them in SQL): each node is a function at a depth under
 * its caller, its count the events whose stack passes through it there; children sorted by name
 * (as flamegraph.pl orders them), so the same stacks always draw the same picture.
 */
public final class FlameGraph {
    private FlameGraph() {
    }

    /**
     * One frame of the graph.
     *
     * @param name     the function (the root is {@code "all"})
     * @param count    events whose stack passes through this frame
     * @param children callees, by name
     */
    public record Node(String name, long count, List<Node> children) {
        /** The deepest level under this node (0 for a leaf). */
        public int depth() {
            int d = 0;
            for (Node c : children) {
                d = Math.max(d, 1 + c.depth());
            }
            return d;
        }
    }

    /**
     * The tree of folded stacks.
     *
     * @param folded stack (root first, {@code ;} between functions) → events
     * @return the root {@code all}, its count the sum of all
     */
    public static Node of(Map<String, Long> folded) {
        Builder root = new Builder("all");
        for (Map.Entry<String, Long> e : folded.entrySet()) {
            Builder at = root;
            at.count += e.getValue();
            for (String f : e.getKey().split(";")) {
                at = at.children.computeIfAbsent(f, Builder::new);
                at.count += e.getValue();
            }
        }
        return root.build();
    }

    /** The node's mutable form while folding. */
    private static final class Builder {
        final String name;
        long count;
        final Map<String, Builder> children = new LinkedHashMap<>();

        Builder(String name) {
            this.name = name;
        }

        Node build() {
            List<Node> out = new ArrayList<>();
            for (Builder b : children.values()) {
                out.add(b.build());
            }
            out.sort((a, b) -> a.name().compareTo(b.name()));
            return new Node(name, count, Collections.unmodifiableList(out));
        }
    }
}
