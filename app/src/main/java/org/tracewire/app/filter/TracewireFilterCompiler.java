package org.tracewire.app.filter;

import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.tracewire.filter.And;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.CompiledFilter;
import org.tracewire.filter.Filter;
import org.tracewire.filter.Not;
import org.tracewire.filter.Op;
import org.tracewire.filter.Or;
import org.tracewire.filter.Value;
import org.tracewire.format.EventFormat;

/**
 * The real {@link FilterCompilerAdapter}: turns the builder's {@link FilterNode} into an
 * {@code org.tracewire.filter.Filter} tree and compiles it with {@link CompiledFilter#compile}
 * (kernel filter, Wireshark display filter, BPF). Empty groups are left out; an empty filter
 * compiles to empty strings.
 */
public final class TracewireFilterCompiler implements FilterCompilerAdapter {
    private final Supplier<ByteOrder> byteOrder;

    /** @param byteOrder the traced kernel's byte order (from the tracefs being browsed) */
    public TracewireFilterCompiler(Supplier<ByteOrder> byteOrder) {
        this.byteOrder = byteOrder;
    }

    /** {@inheritDoc} */
    @Override
    public Compiled compile(EventFormat event, FilterNode filter) {
        Filter f = toFilter(filter);
        if (f == null || event == null) {
            return new Compiled("", "", "", true, List.of());
        }
        ByteOrder order = byteOrder.get();
        CompiledFilter c = CompiledFilter.compile(f, event, order == null ? ByteOrder.LITTLE_ENDIAN : order);
        return new Compiled(c.kernel(), c.display(), c.bpf(), c.bpfExact(), c.warnings());
    }

    /**
     * Converts the builder's model; AND/OR groups become left-nested binary nodes.
     *
     * @param node the model
     * @return the filter tree, or null when the model holds no condition
     */
    public static Filter toFilter(FilterNode node) {
        if (node instanceof FilterNode.Condition c) {
            Value v = c.type() == ValueType.STRING ? Value.of(c.value())
                    : new Value.Num(parse(c.value()));
            return new Comparison(c.field(), op(c.operator()), v);
        }
        FilterNode.Group g = (FilterNode.Group) node;
        List<Filter> parts = new ArrayList<>();
        for (FilterNode child : g.children()) {
            Filter f = toFilter(child);
            if (f != null) {
                parts.add(f);
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        Filter acc = parts.get(0);
        for (int i = 1; i < parts.size(); i++) {
            acc = g.combinator() == FilterNode.Combinator.AND ? new And(acc, parts.get(i)) : new Or(acc, parts.get(i));
        }
        return g.negated() ? new Not(acc) : acc;
    }

    private static BigInteger parse(String text) {
        BigInteger v = ValueType.parseInteger(text.strip());
        if (v == null) {
            throw new IllegalArgumentException("'" + text + "' is not a number");
        }
        return v;
    }

    private static Op op(Operator o) {
        return switch (o) {
            case EQ -> Op.EQ;
            case NE -> Op.NE;
            case LT -> Op.LT;
            case LE -> Op.LE;
            case GT -> Op.GT;
            case GE -> Op.GE;
            case MASK -> Op.BAND;
            case GLOB -> Op.GLOB;
        };
    }
}
