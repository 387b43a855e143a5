package org.tracewire.app.filter;

/** A row of the filter builder: a condition or a group. */
public sealed interface FilterItemViewModel permits ConditionViewModel, GroupViewModel {
    /** @return the immutable model of this row (and its children) */
    FilterNode toModel();

    /** @return true when this row and all its children are valid */
    boolean isValid();

    /** @return the group holding this row, or null for the root */
    GroupViewModel parent();
}
