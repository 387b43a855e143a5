package org.tracewire.app.filter;

import java.util.Map;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.format.Field;

/** A group row: AND/OR over its children, optionally negated (NOT). */
public final class GroupViewModel implements FilterItemViewModel {
    private final GroupViewModel parent;
    private final Map<String, Field> fields;
    private final Runnable changed;
    private final ObjectProperty<FilterNode.Combinator> combinator = new SimpleObjectProperty<>(FilterNode.Combinator.AND);
    private final BooleanProperty negated = new SimpleBooleanProperty();
    private final ObservableList<FilterItemViewModel> children = FXCollections.observableArrayList();

    GroupViewModel(GroupViewModel parent, Map<String, Field> fields, Runnable changed) {
        this.parent = parent;
        this.fields = fields;
        this.changed = changed;
        combinator.addListener((o, a, b) -> changed.run());
        negated.addListener((o, a, b) -> changed.run());
        children.addListener((javafx.collections.ListChangeListener<FilterItemViewModel>) c -> changed.run());
    }

    /**
     * Appends a condition on a field.
     *
     * @param fieldName the field, or null to choose later
     * @return the new row
     */
    public ConditionViewModel addCondition(String fieldName) {
        ConditionViewModel c = new ConditionViewModel(this, fields, changed);
        if (fieldName != null) {
            c.fieldProperty().set(fieldName);
        }
        children.add(c);
        return c;
    }

    /**
     * Appends a nested group.
     *
     * @param kind AND or OR
     * @return the new group
     */
    public GroupViewModel addGroup(FilterNode.Combinator kind) {
        GroupViewModel g = new GroupViewModel(this, fields, changed);
        g.combinatorProperty().set(kind);
        children.add(g);
        return g;
    }

    /** @param child a row of this group to remove */
    public void remove(FilterItemViewModel child) {
        children.remove(child);
    }

    /** AND or OR. */
    public ObjectProperty<FilterNode.Combinator> combinatorProperty() {
        return combinator;
    }

    /** NOT of the whole group. */
    public BooleanProperty negatedProperty() {
        return negated;
    }

    /** The rows of this group. */
    public ObservableList<FilterItemViewModel> getChildren() {
        return children;
    }

    @Override
    public boolean isValid() {
        return children.stream().allMatch(FilterItemViewModel::isValid);
    }

    @Override
    public GroupViewModel parent() {
        return parent;
    }

    @Override
    public FilterNode.Group toModel() {
        return new FilterNode.Group(combinator.get(), negated.get(),
                children.stream().map(FilterItemViewModel::toModel).toList());
    }
}
