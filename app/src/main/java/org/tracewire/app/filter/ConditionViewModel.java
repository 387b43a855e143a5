package org.tracewire.app.filter;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.FilterField;
import org.tracewire.filter.FilterProblem;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.FilterValidator;
import org.tracewire.filter.Op;
import org.tracewire.filter.Value;
import org.tracewire.format.EventFormat;

/**
 * One condition row, core's {@link Comparison}: a field (the event's own fields, {@code CPU},
 * {@code COMM} and the common fields, as {@link FilterField#filterable} lists them), an operator
 * the field takes ({@link FilterField#operators()}), and a value read with
 * {@link FilterValidator#parseValue} and checked with {@link FilterValidator#validate} as it is
 * typed, so that the row accepts exactly what {@code tracewire filter} accepts in text.
 */
public final class ConditionViewModel implements FilterItemViewModel {
    private final GroupViewModel parent;
    private final EventFormat format;
    private final Map<String, FilterField> fields;
    private final StringProperty field = new SimpleStringProperty();
    private final ObjectProperty<Op> operator = new SimpleObjectProperty<>();
    private final StringProperty value = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ObservableList<Op> operators = FXCollections.observableArrayList();
    private Comparison comparison;
    /** An empty string value counts as given (a loaded {@code comm == ""}); a new row's empty box does not. */
    private boolean emptyValueGiven;

    ConditionViewModel(GroupViewModel parent, EventFormat format, Map<String, FilterField> fields, Runnable changed) {
        this.parent = parent;
        this.format = format;
        this.fields = fields;
        field.addListener((o, a, b) -> {
            FilterField f = filterField();
            List<Op> ops = f == null ? List.of() : f.operators();
            operators.setAll(ops);
            if (operator.get() == null || !ops.contains(operator.get())) {
                operator.set(ops.isEmpty() ? null : ops.get(0));
            }
            validate();
            changed.run();
        });
        operator.addListener((o, a, b) -> {
            validate();
            changed.run();
        });
        value.addListener((o, a, b) -> {
            validate();
            changed.run();
        });
        validate();
    }

    /**
     * The chosen field as core's filter resolves it: one of the offered fields, or an alias the
     * kernel also takes ({@code cpu}, {@code common_cpu}, {@code comm}, as in a loaded filter).
     *
     * @return the field, or null when none, an unknown or an unfilterable one is chosen
     */
    public FilterField filterField() {
        String name = field.get();
        if (name == null) {
            return null;
        }
        FilterField f = fields.get(name);
        if (f == null && format != null) {
            f = FilterField.resolve(format, name);
        }
        return f == null || f.type() == FilterField.Type.UNSUPPORTED ? null : f;
    }

    private void validate() {
        comparison = null;
        FilterField f = filterField();
        if (f == null) {
            error.set(field.get() == null ? "choose a field" : "unknown field " + field.get());
            return;
        }
        if ((value.get() == null || value.get().isEmpty()) && !emptyValueGiven) {
            error.set("enter a value");
            return;
        }
        Value v;
        try {
            v = FilterValidator.parseValue(f, value.get());
        } catch (FilterSyntaxException e) {
            error.set(e.detail());
            return;
        }
        if (operator.get() == null) {
            error.set("choose an operator");
            return;
        }
        Comparison c = new Comparison(f.name(), operator.get(), v);
        List<FilterProblem> problems = format == null ? List.of() : FilterValidator.validate(c, format);
        if (!problems.isEmpty()) {
            error.set(problems.get(0).message());
            return;
        }
        comparison = c;
        error.set("");
    }

    /**
     * Sets field, operator and value from a comparison (for a filter loaded from text).
     *
     * @param c a comparison on one of the offered fields
     */
    void set(Comparison c) {
        emptyValueGiven = c.value() instanceof Value.Str s && s.value().isEmpty();
        field.set(c.field());
        operator.set(c.op());
        value.set(valueText(c));
        validate();
    }

    /** The value as a user would type it: strings as they are, bit masks in hex, other numbers in decimal. */
    static String valueText(Comparison c) {
        if (c.value() instanceof Value.Str s) {
            return s.value();
        }
        BigInteger n = ((Value.Num) c.value()).value();
        return c.op() == Op.BAND && n.signum() >= 0 ? "0x" + n.toString(16) : n.toString();
    }

    /** The field name. */
    public StringProperty fieldProperty() {
        return field;
    }

    /** The operator: one of {@link #getOperators()}. */
    public ObjectProperty<Op> operatorProperty() {
        return operator;
    }

    /** The value as typed: a number (decimal, {@code 0x} hex, {@code 0} octal) or a string without quotes. */
    public StringProperty valueProperty() {
        return value;
    }

    /** Why the row is invalid; empty when valid. */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** Operators the chosen field takes, the default first. */
    public ObservableList<Op> getOperators() {
        return operators;
    }

    @Override
    public boolean isValid() {
        return comparison != null;
    }

    @Override
    public GroupViewModel parent() {
        return parent;
    }

    /**
     * @return {@code field op value}
     * @throws IllegalStateException while the row is invalid ({@link #errorProperty()} says why)
     */
    @Override
    public Comparison toFilter() {
        if (comparison == null) {
            throw new IllegalStateException("invalid condition: " + error.get());
        }
        return comparison;
    }
}
