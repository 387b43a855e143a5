package org.tracewire.app.filter;

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
import org.tracewire.format.Field;

/**
 * One condition row: field (from the event's and the common fields), an operator allowed for the
 * field's type, and a value checked against the type as it is typed.
 */
public final class ConditionViewModel implements FilterItemViewModel {
    private final GroupViewModel parent;
    private final Map<String, Field> fields;
    private final StringProperty field = new SimpleStringProperty();
    private final ObjectProperty<Operator> operator = new SimpleObjectProperty<>();
    private final StringProperty value = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ObservableList<Operator> operators = FXCollections.observableArrayList();

    ConditionViewModel(GroupViewModel parent, Map<String, Field> fields, Runnable changed) {
        this.parent = parent;
        this.fields = fields;
        field.addListener((o, a, b) -> {
            List<Operator> ops = Operator.forType(type());
            operators.setAll(ops);
            if (operator.get() == null || !ops.contains(operator.get())) {
                operator.set(ops.isEmpty() ? null : ops.get(0));
            }
            validate();
            changed.run();
        });
        operator.addListener((o, a, b) -> changed.run());
        value.addListener((o, a, b) -> {
            validate();
            changed.run();
        });
        validate();
    }

    /** The value type of the chosen field. */
    public ValueType type() {
        Field f = field.get() == null ? null : fields.get(field.get());
        return f == null ? ValueType.UNSUPPORTED : ValueType.of(f);
    }

    private void validate() {
        Field f = field.get() == null ? null : fields.get(field.get());
        if (f == null) {
            error.set(field.get() == null ? "choose a field" : "unknown field " + field.get());
        } else {
            error.set(ValueType.of(f).validate(value.get(), f.size()));
        }
    }

    /** The field name. */
    public StringProperty fieldProperty() {
        return field;
    }

    /** The operator. */
    public ObjectProperty<Operator> operatorProperty() {
        return operator;
    }

    /** The value as typed. */
    public StringProperty valueProperty() {
        return value;
    }

    /** Why the row is invalid; empty when valid. */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** Operators allowed for the chosen field. */
    public ObservableList<Operator> getOperators() {
        return operators;
    }

    @Override
    public boolean isValid() {
        return error.get().isEmpty() && operator.get() != null;
    }

    @Override
    public GroupViewModel parent() {
        return parent;
    }

    @Override
    public FilterNode toModel() {
        return new FilterNode.Condition(field.get(), operator.get(), value.get() == null ? "" : value.get(), type());
    }
}
