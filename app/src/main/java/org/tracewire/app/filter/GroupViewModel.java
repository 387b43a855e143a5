package org.tracewire.app.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterField;
import org.tracewire.filter.Junction;
import org.tracewire.filter.Not;
import org.tracewire.format.EventFormat;

/**
 * A group row: its children joined with {@code &&} or {@code ||} ({@link Junction}), optionally
 * negated (NOT). As a filter tree: {@code Junction.join} of the children's trees (empty groups
 * left out), wrapped in {@link Not} when negated.
 */
public final class GroupViewModel implements FilterItemViewModel {
    private final GroupViewModel parent;
    private final EventFormat format;
    private final Map<String, FilterField> fields;
    private final Runnable changed;
    private final ObjectProperty<Junction> junction = new SimpleObjectProperty<>(Junction.AND);
    private final BooleanProperty negated = new SimpleBooleanProperty();
    private final ObservableList<FilterItemViewModel> children = FXCollections.observableArrayList();

    GroupViewModel(GroupViewModel parent, EventFormat format, Map<String, FilterField> fields, Runnable changed) {
        this.parent = parent;
        this.format = format;
        this.fields = fields;
        this.changed = changed;
        junction.addListener((o, a, b) -> changed.run());
        negated.addListener((o, a, b) -> changed.run());
        children.addListener((ListChangeListener<FilterItemViewModel>) c -> changed.run());
    }

    /**
     * Appends a condition on a field.
     *
     * @param fieldName the field, or null to choose later
     * @return the new row
     */
    public ConditionViewModel addCondition(String fieldName) {
        ConditionViewModel c = new ConditionViewModel(this, format, fields, changed);
        if (fieldName != null) {
            c.fieldProperty().set(fieldName);
        }
        children.add(c);
        return c;
    }

    /**
     * Appends a condition the user must fill: no field, no operator, no value (invalid until then,
     * so the filter never gains a condition nobody wrote, such as {@code prev_comm == ""}).
     *
     * @return the new condition
     */
    public ConditionViewModel addEmptyCondition() {
        return addCondition(null);
    }

    /**
     * Appends a nested group.
     *
     * @param kind AND or OR
     * @return the new group
     */
    public GroupViewModel addGroup(Junction kind) {
        GroupViewModel g = new GroupViewModel(this, format, fields, changed);
        g.junctionProperty().set(kind);
        children.add(g);
        return g;
    }

    /** @param child a row of this group to remove */
    public void remove(FilterItemViewModel child) {
        children.remove(child);
    }

    /** AND or OR. */
    public ObjectProperty<Junction> junctionProperty() {
        return junction;
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
    public Filter toFilter() {
        List<Filter> parts = new ArrayList<>();
        for (FilterItemViewModel child : children) {
            Filter f = child.toFilter();
            if (f != null) {
                parts.add(f);
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        Filter joined = junction.get().join(parts);
        return negated.get() ? new Not(joined) : joined;
    }
}
